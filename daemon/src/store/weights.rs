//! Learned fusion weights (`learning::weights`), in one tree by prefix: `s\0<project>\0<id>`
//! one sample (a lesson at a moment, its six signals, whether it proved right), bounded per
//! project; `w\0<project>` the project's mix with its history of runs.

use serde::{Deserialize, Serialize};

use super::codec::{decode, encode, StoreError};
use super::Store;

/// A mix of the decision's six signal groups (`learning::weights::SIGNALS` names them).
pub type Mix = [f64; 6];

/// One lesson at one moment: its six signals (each in [0, 1]) and whether it proved right there.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub signals: Mix,
    pub positive: bool,
}

/// Most samples kept per project (the newest).
pub const MAX_SAMPLES: usize = 2_000;
/// Most runs kept in a project's history.
const MAX_RUNS: usize = 50;

/// One tuning run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub at: String,
    pub samples: usize,
    pub positives: usize,
    /// The mix the samples pointed to, and the one in force after the run's bounded step.
    pub target: Mix,
    pub weights: Mix,
}

/// A project's learned mix.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WeightsRecord {
    pub weights: Option<Mix>,
    #[serde(default)]
    pub history: Vec<Run>,
}

/// A prediction and what followed it (layer 4): the components it was made of, and whether the
/// memory was accessed before the next prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredictionSample {
    pub components: Vec<f64>,
    pub hit: bool,
}

/// A project's learned prediction weights (temporal, causal, frequency) with their runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PredictionRecord {
    pub weights: Option<Vec<f64>>,
    #[serde(default)]
    pub history: Vec<PredictionRun>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredictionRun {
    pub at: String,
    pub samples: usize,
    pub hits: usize,
    pub weights: Vec<f64>,
}

fn sample_prefix(project: &str) -> Vec<u8> {
    [b"s\0", project.as_bytes(), b"\0"].concat()
}

fn record_key(project: &str) -> Vec<u8> {
    [b"w\0", project.as_bytes()].concat()
}

impl Store {
    /// Keeps a prediction sample of `project` (bounded as the fusion samples are).
    pub fn add_prediction_sample(&self, project: &str, sample: &PredictionSample) -> Result<(), StoreError> {
        self.push_bounded(&[b"p\0", project.as_bytes(), b"\0"].concat(), &encode(sample))
    }

    /// Appends under `prefix` (sled's ids rise across restarts, so the keys keep the order
    /// values came in); past [`MAX_SAMPLES`] under it, the oldest goes.
    fn push_bounded(&self, prefix: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.writable()?;
        self.weights.insert([prefix, &self.db.generate_id()?.to_be_bytes()].concat(), value)?;
        let count = self.weights.scan_prefix(prefix).count();
        for item in self.weights.scan_prefix(prefix).take(count.saturating_sub(MAX_SAMPLES)) {
            self.weights.remove(item?.0)?;
        }
        Ok(())
    }

    pub fn prediction_samples(&self, project: &str) -> Result<Vec<PredictionSample>, StoreError> {
        let prefix = [b"p\0", project.as_bytes(), b"\0"].concat();
        self.weights.scan_prefix(prefix).map(|item| item.map_err(StoreError::from).and_then(|(k, v)| decode(&k, &v))).collect()
    }

    pub fn prediction_record(&self, project: &str) -> Result<PredictionRecord, StoreError> {
        let k = [b"q\0", project.as_bytes()].concat();
        Ok(self.weights.get(&k)?.map(|v| decode(&k, &v)).transpose()?.unwrap_or_default())
    }

    /// Records a run of the prediction weights (history bounded), or with `None` a reset.
    pub fn put_prediction_weights(&self, project: &str, run: Option<PredictionRun>) -> Result<PredictionRecord, StoreError> {
        self.writable()?;
        let mut r = self.prediction_record(project)?;
        match run {
            Some(run) => {
                r.weights = Some(run.weights.clone());
                r.history.push(run);
                let over = r.history.len().saturating_sub(MAX_RUNS);
                r.history.drain(..over);
            }
            None => r.weights = None,
        }
        self.weights.insert([b"q\0", project.as_bytes()].concat(), encode(&r))?;
        Ok(r)
    }

    /// Keeps a sample of `project`; past [`MAX_SAMPLES`], the oldest goes.
    pub fn add_weight_sample(&self, project: &str, sample: &Sample) -> Result<(), StoreError> {
        self.push_bounded(&sample_prefix(project), &encode(sample))
    }

    /// A project's samples, oldest first.
    pub fn weight_samples(&self, project: &str) -> Result<Vec<Sample>, StoreError> {
        self.weights.scan_prefix(sample_prefix(project)).map(|item| item.map_err(StoreError::from).and_then(|(k, v)| decode(&k, &v))).collect()
    }

    /// Projects with samples.
    pub fn weight_projects(&self) -> Result<Vec<String>, StoreError> {
        let mut out: Vec<String> = Vec::new();
        for item in self.weights.scan_prefix(b"s\0") {
            let (k, _) = item?;
            let project = String::from_utf8_lossy(&k[2..]).split('\0').next().unwrap_or("").to_string();
            if out.last() != Some(&project) {
                out.push(project);
            }
        }
        Ok(out)
    }

    pub fn weights_record(&self, project: &str) -> Result<WeightsRecord, StoreError> {
        let k = record_key(project);
        Ok(self.weights.get(&k)?.map(|v| decode(&k, &v)).transpose()?.unwrap_or_default())
    }

    /// Every project's learned mix.
    pub fn learned_mixes(&self) -> Result<Vec<(String, Mix)>, StoreError> {
        let mut out = Vec::new();
        for item in self.weights.scan_prefix(b"w\0") {
            let (k, v) = item?;
            let r: WeightsRecord = decode(&k, &v)?;
            if let Some(w) = r.weights {
                out.push((String::from_utf8_lossy(&k[2..]).into_owned(), w));
            }
        }
        Ok(out)
    }

    /// Records a run (its history bounded) or, with `None`, a reset to the default mix.
    pub fn put_weights(&self, project: &str, run: Option<Run>) -> Result<WeightsRecord, StoreError> {
        self.writable()?;
        let mut r = self.weights_record(project)?;
        match run {
            Some(run) => {
                r.weights = Some(run.weights);
                r.history.push(run);
                let over = r.history.len().saturating_sub(MAX_RUNS);
                r.history.drain(..over);
            }
            None => r.weights = None,
        }
        self.weights.insert(record_key(project), encode(&r))?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn samples_are_bounded_and_runs_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("store"), 8 << 20).unwrap();
        for i in 0..MAX_SAMPLES + 5 {
            store.add_weight_sample("p", &Sample { signals: [i as f64; 6], positive: i % 2 == 0 }).unwrap();
        }
        store.add_weight_sample("q", &Sample { signals: [0.0; 6], positive: true }).unwrap();
        let s = store.weight_samples("p").unwrap();
        assert_eq!(s.len(), MAX_SAMPLES);
        assert_eq!(s[0].signals[0], 5.0, "the oldest went");
        assert_eq!(store.weight_projects().unwrap(), vec!["p", "q"]);
        let run = Run { at: "t".into(), samples: 3, positives: 1, target: [0.2, 0.1, 0.1, 0.2, 0.2, 0.2], weights: [0.2, 0.1, 0.1, 0.2, 0.2, 0.2] };
        store.put_weights("p", Some(run.clone())).unwrap();
        assert_eq!(store.learned_mixes().unwrap(), vec![("p".to_string(), run.weights)]);
        let r = store.put_weights("p", None).unwrap();
        assert_eq!((r.weights, r.history.len()), (None, 1), "a reset keeps the history");
    }
}
