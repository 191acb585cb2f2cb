//! The store's schema version and the migrations that bring an older store up to date.
//! Every release that changes how records are laid out adds a migration here.

use super::codec::{decode, encode, StoreError};

/// Schema this build writes.
pub const CURRENT: u32 = 5;

const KEY: &[u8] = b"schema_version";

/// A step from version `to - 1` to `to`.
pub type Migration = fn(&sled::Db) -> Result<(), StoreError>;

/// Migrations in order.
pub const MIGRATIONS: &[(u32, Migration)] = &[(2, drop_uncomputed_tiers), (3, index_edges_by_target), (4, count_days), (5, index_adjustments)];

/// Schema 5: the adjustment log's lines are found by what they are about (`adjustments_by`).
fn index_adjustments(db: &sled::Db) -> Result<(), StoreError> {
    let log = db.open_tree("adjustments")?;
    let index = db.open_tree("adjustments_by")?;
    for item in log.iter() {
        let (id, bytes) = item?;
        let line: serde_json::Value = decode(&id, &bytes)?;
        for subject in super::codec::adjustment_subjects(&line) {
            index.insert(super::codec::adjustment_index_key(subject, &id), &[])?;
        }
    }
    Ok(())
}

/// Schema 4: each day's activity per project (`daily`) is counted from what the session log and
/// the outcome records still hold; feedback and the hook's timings are counted from then on.
/// The records are read for the few fields counted, as they were written then.
fn count_days(db: &sled::Db) -> Result<(), StoreError> {
    use std::collections::BTreeMap;

    use cairn_proto::DayStats;

    #[derive(serde::Deserialize)]
    struct Event {
        at: String,
        project: String,
        #[serde(default)]
        intent: Option<String>,
        #[serde(default)]
        advised: Vec<serde::de::IgnoredAny>,
    }
    #[derive(serde::Deserialize)]
    struct Outcome {
        at: String,
        project: String,
        memory: String,
        verdict: String,
    }
    let mut days: BTreeMap<(String, String), DayStats> = BTreeMap::new();
    fn day<'a>(days: &'a mut BTreeMap<(String, String), DayStats>, at: &str, project: &str) -> Option<&'a mut DayStats> {
        let d = super::codec::day_of(at)?.to_string();
        Some(days.entry((d.clone(), project.to_string())).or_insert_with(|| DayStats { day: d, ..Default::default() }))
    }
    for item in db.open_tree("session_log")?.iter() {
        let (k, v) = item?;
        let e: Event = decode(&k, &v)?;
        if let Some(d) = day(&mut days, &e.at, &e.project) {
            d.count_event(e.intent.is_some() || !e.advised.is_empty(), e.advised.len() as u64);
        }
    }
    for item in db.open_tree("outcomes")?.iter() {
        let (k, v) = item?;
        let r: Outcome = decode(&k, &v)?;
        if r.memory != super::codec::CO_USED
            && let Some(d) = day(&mut days, &r.at, &r.project)
        {
            d.move_verdict(None, &r.verdict);
        }
    }
    let daily = db.open_tree("daily")?;
    for ((d, project), stats) in days {
        daily.insert(super::codec::day_key(&d, &project), encode(&stats))?;
    }
    Ok(())
}

/// Schema 3: edges are found by their target as well (`edges_in`), for a lesson's situations
/// and for forgetting a memory without scanning every edge. Imported edges get their entry.
fn index_edges_by_target(db: &sled::Db) -> Result<(), StoreError> {
    let edges = db.open_tree("edges")?;
    let edges_in = db.open_tree("edges_in")?;
    for item in edges.iter() {
        let (key, _) = item?;
        let mut parts = key.split(|b| *b == 0);
        let (Some(source), Some(target), Some(kind)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(StoreError::Corrupt(format!("edge key {:?}", String::from_utf8_lossy(&key))));
        };
        edges_in.insert([target, b"\0", source, b"\0", kind].concat(), &[])?;
    }
    Ok(())
}

/// Schema 2: a memory's tier is absent until the temporal layer computes one. The first
/// releases wrote `"tier": "active"` into every memory without computing anything, so the
/// stored tiers are taken out (every other field, known or not, is kept as it was).
fn drop_uncomputed_tiers(db: &sled::Db) -> Result<(), StoreError> {
    let memories = db.open_tree("memories")?;
    for item in memories.iter() {
        let (key, bytes) = item?;
        let mut record: serde_json::Value = decode(&key, &bytes)?;
        let removed = record.get_mut("now").and_then(|now| now.as_object_mut()).and_then(|now| now.remove("tier"));
        if removed.is_some() {
            memories.insert(&key, encode(&record))?;
        }
    }
    Ok(())
}

pub fn read(meta: &sled::Tree) -> Result<Option<u32>, StoreError> {
    match meta.get(KEY)? {
        None => Ok(None),
        Some(bytes) => {
            let arr: [u8; 4] = bytes.as_ref().try_into().map_err(|_| StoreError::Corrupt("schema_version is not 4 bytes".into()))?;
            Ok(Some(u32::from_be_bytes(arr)))
        }
    }
}

fn write(meta: &sled::Tree, version: u32) -> Result<(), StoreError> {
    meta.insert(KEY, &version.to_be_bytes())?;
    Ok(())
}

/// Brings the store to `current`, running `migrations` in order. A fresh store is stamped
/// `current`; a store from a newer cairn is refused rather than misread.
pub fn ensure(db: &sled::Db, meta: &sled::Tree, current: u32, migrations: &[(u32, Migration)]) -> Result<u32, StoreError> {
    let found = match read(meta)? {
        None => {
            write(meta, current)?;
            db.flush()?;
            return Ok(current);
        }
        Some(v) => v,
    };
    if found > current {
        return Err(StoreError::TooNew { found, supported: current });
    }
    for (to, migrate) in migrations.iter().filter(|(to, _)| *to > found && *to <= current) {
        tracing::info!(from = to - 1, to, "migrating store");
        migrate(db)?;
        write(meta, *to)?;
        db.flush()?;
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> (tempfile::TempDir, sled::Db) {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::Config::new().path(dir.path().join("s")).open().unwrap();
        (dir, db)
    }

    #[test]
    fn fresh_store_is_stamped() {
        let (_d, db) = db();
        let meta = db.open_tree("meta").unwrap();
        assert_eq!(ensure(&db, &meta, CURRENT, MIGRATIONS).unwrap(), CURRENT);
        assert_eq!(read(&meta).unwrap(), Some(CURRENT));
    }

    #[test]
    fn migrations_run_in_order_once() {
        fn to2(db: &sled::Db) -> Result<(), StoreError> {
            db.insert("ran2", "yes")?;
            Ok(())
        }
        fn to3(db: &sled::Db) -> Result<(), StoreError> {
            assert!(db.get("ran2")?.is_some(), "2 runs before 3");
            db.insert("ran3", "yes")?;
            Ok(())
        }
        let (_d, db) = db();
        let meta = db.open_tree("meta").unwrap();
        write(&meta, 1).unwrap();
        let steps: &[(u32, Migration)] = &[(2, to2), (3, to3)];
        assert_eq!(ensure(&db, &meta, 3, steps).unwrap(), 3);
        assert!(db.get("ran3").unwrap().is_some());
        db.remove("ran3").unwrap();
        ensure(&db, &meta, 3, steps).unwrap();
        assert!(db.get("ran3").unwrap().is_none(), "already migrated");
    }

    #[test]
    fn schema_3_indexes_imported_edges_by_target() {
        let (_d, db) = db();
        let meta = db.open_tree("meta").unwrap();
        write(&meta, 2).unwrap();
        let edges = db.open_tree("edges").unwrap();
        edges.insert(b"a\0b\0manual", br#"{"source":"a","target":"b","kind":"manual","strength":0.5,"created_at":"t","updated_at":"t"}"#.as_slice()).unwrap();
        assert_eq!(ensure(&db, &meta, CURRENT, MIGRATIONS).unwrap(), CURRENT);
        let edges_in = db.open_tree("edges_in").unwrap();
        assert!(edges_in.get(b"b\0a\0manual").unwrap().is_some());
        edges.insert(b"broken", b"{}".as_slice()).unwrap();
        write(&meta, 2).unwrap();
        assert!(matches!(ensure(&db, &meta, CURRENT, MIGRATIONS), Err(StoreError::Corrupt(_))), "a key that is not an edge's is corruption");
    }

    #[test]
    fn schema_5_indexes_the_adjustment_log() {
        let (_d, db) = db();
        let meta = db.open_tree("meta").unwrap();
        write(&meta, 4).unwrap();
        db.open_tree("adjustments").unwrap().insert(7u64.to_be_bytes(), br#"{"node":"m1","new":0.4}"#.as_slice()).unwrap();
        assert_eq!(ensure(&db, &meta, CURRENT, MIGRATIONS).unwrap(), CURRENT);
        let index = db.open_tree("adjustments_by").unwrap();
        assert!(index.get([b"m1\0".as_slice(), &7u64.to_be_bytes()].concat()).unwrap().is_some());
    }

    #[test]
    fn schema_4_counts_the_days_the_log_still_holds() {
        let (_d, db) = db();
        let meta = db.open_tree("meta").unwrap();
        write(&meta, 3).unwrap();
        let log = db.open_tree("session_log").unwrap();
        let event = |advised: &str| format!(r#"{{"at":"2026-03-04T05:06:07.000Z","session_id":"s","event":"PostToolUse","project":"/p","intent":"x","payload":{{}},"advised":[{advised}]}}"#);
        let item = r#"{"id":"m","text":"t","score":1.0,"why":"w"}"#;
        log.insert(ulid::Ulid::new().to_bytes(), event(item).as_bytes()).unwrap();
        log.insert(ulid::Ulid::new().to_bytes(), event("").as_bytes()).unwrap();
        let outcomes = db.open_tree("outcomes").unwrap();
        outcomes.insert(b"k", br#"{"at":"2026-03-04T05:06:07.000Z","session_id":"s","event":"PostToolUse","project":"/p","memory":"m","verdict":"followed","settled":true,"evidence":"e","decided_at":"t"}"#.as_slice()).unwrap();
        assert_eq!(ensure(&db, &meta, CURRENT, MIGRATIONS).unwrap(), CURRENT);
        let day: cairn_proto::DayStats = serde_json::from_slice(&db.open_tree("daily").unwrap().get(b"2026-03-04\0/p").unwrap().unwrap()).unwrap();
        assert_eq!((day.events, day.weighed, day.advised, day.said, day.followed), (2, 2, 1, 1, 1));
    }

    #[test]
    fn schema_2_takes_out_the_tiers_never_computed() {
        let (_d, db) = db();
        let meta = db.open_tree("meta").unwrap();
        write(&meta, 1).unwrap();
        let memories = db.open_tree("memories").unwrap();
        let v1 = r#"{"id":"a","project":"global","text":"t","category":"git","source":"user","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","now":{"tier":"active","last_accessed":null,"access_count":0},"future":1}"#;
        memories.insert("a", v1).unwrap();
        assert_eq!(ensure(&db, &meta, CURRENT, MIGRATIONS).unwrap(), CURRENT);
        let after: serde_json::Value = serde_json::from_slice(&memories.get("a").unwrap().unwrap()).unwrap();
        assert!(after["now"].get("tier").is_none(), "{after}");
        assert_eq!((after["now"]["access_count"].clone(), after["future"].clone(), after["text"].clone()), (0.into(), 1.into(), "t".into()), "the rest is kept");
        let memory: cairn_proto::Memory = serde_json::from_value(after).unwrap();
        assert_eq!(memory.now.tier, None);
    }

    #[test]
    fn newer_store_is_refused() {
        let (_d, db) = db();
        let meta = db.open_tree("meta").unwrap();
        write(&meta, CURRENT + 1).unwrap();
        assert!(matches!(ensure(&db, &meta, CURRENT, MIGRATIONS), Err(StoreError::TooNew { .. })));
    }
}
