//! Causality (why a memory exists): `cairn why`, `chain`, `dependents` and `causality stats`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::scope::Scope;
use crate::memory::Memory;

/// Something a memory links to, as found now.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CausalLink {
    pub id: String,
    /// `memory`, `situation` or `missing`.
    pub kind: String,
    pub text: String,
    #[serde(default)]
    pub depth: usize,
}

/// `cairn why`: the reasoning behind a memory, reconstructed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WhyReport {
    pub memory: Memory,
    pub caused_by: Vec<CausalLink>,
    pub dependencies: Vec<CausalLink>,
    /// How many memories descend from it.
    pub dependents: usize,
    /// The reasoning in words.
    pub story: Vec<String>,
}

/// `cairn chain`: from the root down to the memory.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChainReport {
    pub chain: Vec<CausalLink>,
    /// Where the walk stopped early (a cycle, something gone), or other causes not followed.
    pub notes: Vec<String>,
}

/// `cairn dependents`: every transitive descendant, across projects.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DependentsReport {
    pub root: String,
    pub dependents: Vec<CausalLink>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CausalityQuery {
    #[serde(default)]
    pub scope: Scope,
    /// Every project.
    #[serde(default)]
    pub all: bool,
}

/// `cairn causality stats`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CausalityStats {
    /// The project counted, or `None` for every project.
    pub project: Option<String>,
    pub memories: usize,
    pub with_cause: usize,
    pub with_dependencies: usize,
    pub roots: usize,
    pub by_action_type: BTreeMap<String, usize>,
    pub broken_links: usize,
    pub deepest_chain: usize,
}
