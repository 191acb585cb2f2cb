//! `config show` (the effective settings and rules, each value with its source) and
//! `config init` (commented default files, never overwriting without `force`).

use std::path::Path;

use cairn_proto::{ConfigReport, RuleView, SettingView};

use super::daemon::Daemon;
use super::error::{Error, Result};
use crate::config::{rules, tuneables};

pub async fn show(d: &Daemon) -> ConfigReport {
    let c = d.config().read();
    ConfigReport {
        tuneables_file: d.paths().tuneables_file().display().to_string(),
        tuneables_state: c.tuneables_error.clone().unwrap_or_else(|| "ok".into()),
        settings: tuneables::settings(&c.tuneables, &c.tuneables_file)
            .into_iter()
            .map(|s| SettingView { key: s.key, value: s.value, source: s.source.to_string() })
            .collect(),
        unknown_keys: c.unknown_keys.clone(),
        renamed_keys: c.renamed_keys.clone(),
        rules_file: d.paths().trigger_rules_file().display().to_string(),
        rules_state: c.rules_error.clone().unwrap_or_else(|| "ok".into()),
        rules: c
            .rules
            .rules
            .iter()
            .map(|r| RuleView {
                name: r.spec.name.clone(),
                pattern: r.spec.pattern.clone(),
                surface: r.spec.surface.clone(),
                priority: r.spec.priority.name().to_string(),
                interrupt: r.spec.interrupt,
                learned: r.learned,
            })
            .collect(),
    }
}

/// Writes `text` to `path` through a temporary file, after backing up what was there.
fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    if path.exists() {
        let stamp = crate::base::clock::now().replace([':', '.'], "-");
        std::fs::copy(path, path.with_file_name(format!("{}.{stamp}.bak", path.file_name().unwrap_or_default().to_string_lossy())))?;
    }
    cairn_proto::files::replace(path, text.as_bytes())
}

pub async fn init(d: &Daemon, force: bool) -> Result<Vec<String>> {
    let mut report = Vec::new();
    for (path, text) in [(d.paths().tuneables_file(), tuneables::template()), (d.paths().trigger_rules_file(), rules::TEMPLATE.to_string())] {
        if path.exists() && !force {
            report.push(format!("kept {} (it exists; --force replaces it, after a backup)", path.display()));
            continue;
        }
        write_file(&path, &text).map_err(|source| Error::Write { path: path.clone(), source })?;
        report.push(format!("wrote {}", path.display()));
    }
    Ok(report)
}
