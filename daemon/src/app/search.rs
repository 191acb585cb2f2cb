//! `search`: hybrid retrieval for a person, keywords and embeddings fused, each result with both
//! kinds of evidence and why it ranks where it does. No gate but evidence: the best `k` that
//! share a word with the query or come close enough in meaning
//! (`retrieval.search_min_similarity`); nothing else is shown, even to fill `k`.

use cairn_proto::{SearchHit, SearchRequest, SearchResults, GLOBAL_PROJECT};

use super::daemon::Daemon;
use super::error::{Error, Result};
use crate::retrieval::hybrid::Fusion;
use super::retrieve::{with_retrieval, Patience};

const DEFAULT_K: u32 = 10;
const MAX_K: u32 = 1000;

pub async fn search(d: &Daemon, req: SearchRequest) -> Result<SearchResults> {
    let text = req.text.trim().to_string();
    if text.is_empty() {
        return Err(Error::Invalid("give a text to search for".into()));
    }
    super::retrieve::bounded_query(&text)?;
    let k = req.k.unwrap_or(DEFAULT_K);
    if k == 0 || k > MAX_K {
        return Err(Error::Invalid(format!("-k must be between 1 and {MAX_K}")));
    }
    let project = d.project_for(&req.scope);
    let projects: Vec<&str> = if project == GLOBAL_PROJECT { vec![GLOBAL_PROJECT] } else { vec![project.as_str(), GLOBAL_PROJECT] };
    let _ = d.embedder_ready().await;
    let t = d.tuneables();
    // Those without evidence are left out before the best `k` are taken, so ask for more.
    let wider = (k as usize).saturating_mul(4).max(k as usize + 20).min(MAX_K as usize);
    let (hits, hybrid) = tokio::task::block_in_place(|| with_retrieval(d, &t, &text, Patience::Human, Fusion::from_settings(&t.retrieval), None, |r| (r.hybrid(&text, &projects, wider), r.is_hybrid())));
    let floor = t.retrieval.search_min_similarity;
    let results = hits
        .into_iter()
        .filter(|hit| !hit.matched.is_empty() || hit.cosine.is_some_and(|c| c >= floor))
        .filter_map(|hit| {
            let memory = d.memories().get(&hit.id)?;
            let words = if hit.matched.is_empty() { String::new() } else { format!("; matched {}", hit.words()) };
            Some(SearchHit {
                why: format!("{}{words}", hit.explain()),
                id: memory.id,
                text: memory.text,
                project: memory.project,
                category: memory.category,
                score: hit.relevance,
                similarity: hit.cosine,
                bm25: hit.bm25,
            })
        })
        .take(k as usize)
        .collect::<Vec<SearchHit>>();
    // Being found is an access (the tier counts from it); a store that refuses writes still
    // answers the search.
    let found: Vec<String> = if req.browse { Vec::new() } else { results.iter().map(|r: &SearchHit| r.id.clone()).collect() };
    if let Err(e) = tokio::task::block_in_place(|| super::tiers::touch(d, &found)) {
        tracing::warn!(error = %e, "cannot record the search's accesses");
    }
    Ok(SearchResults { results, mode: if hybrid { "hybrid".into() } else { "keywords".into() } })
}
