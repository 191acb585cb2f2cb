//! `seed`: the seed pack of universal lessons, listed or turned off and on.

use serde::{Deserialize, Serialize};

/// What `cairn seed` asks for.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum SeedAction {
    List,
    /// Turn the whole pack (`None`) or one seed on again; seeds never loaded are loaded.
    Enable(Option<String>),
    /// Turn the whole pack (`None`) or one seed off; nothing is deleted.
    Disable(Option<String>),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SeedReport {
    pub pack_enabled: bool,
    pub seeds: Vec<SeedView>,
    /// What a change did, in words.
    #[serde(default)]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SeedView {
    pub id: String,
    pub category: String,
    pub priority: String,
    pub text: String,
    /// `on`, `off` (this seed), `pack off`, `yours` (edited, no longer a seed), `forgotten`, or
    /// `not loaded`.
    pub state: String,
    /// Whether the seed comes with trigger patterns.
    pub triggers: bool,
}
