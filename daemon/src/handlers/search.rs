//! `search`: hybrid retrieval for a person: keywords and embeddings fused, each result with both
//! kinds of evidence and why it ranks where it does. No gates: the best `k`, whatever they score.

use cairn_proto::{RpcError, SearchHit, SearchRequest, SearchResults, GLOBAL_PROJECT};

use crate::advisor::MemoryLookup;
use crate::handlers::advise::{with_retrieval, Patience};
use crate::state::Daemon;

const DEFAULT_K: u32 = 10;
const MAX_K: u32 = 1000;

pub async fn handle(d: &Daemon, req: SearchRequest) -> Result<SearchResults, RpcError> {
    let text = req.text.trim().to_string();
    if text.is_empty() {
        return Err(RpcError::Invalid("give a text to search for".into()));
    }
    let k = req.k.unwrap_or(DEFAULT_K);
    if k == 0 || k > MAX_K {
        return Err(RpcError::Invalid(format!("-k must be between 1 and {MAX_K}")));
    }
    let project = d.project_for(&req.scope);
    let projects: Vec<&str> = if project == GLOBAL_PROJECT { vec![GLOBAL_PROJECT] } else { vec![project.as_str(), GLOBAL_PROJECT] };
    let _ = d.embedder_ready().await;
    let (scored, hybrid, fusion) = tokio::task::block_in_place(|| {
        with_retrieval(d, &text, Patience::Human, |r| (r.hybrid(&text, &projects, k as usize), r.is_hybrid(), r.fusion))
    });
    // Matched terms are stems; show the words as the query wrote them.
    let surface: std::collections::HashMap<String, String> = crate::text::terms_with_words(&text).into_iter().collect();
    let results = scored
        .into_iter()
        .filter_map(|s| {
            let memory = d.store.memory(&s.id)?;
            let matched: Vec<String> = s.matched.iter().map(|t| format!("'{}'", surface.get(t).unwrap_or(t))).collect();
            let words = if matched.is_empty() { String::new() } else { format!("; matched {}", matched.join(", ")) };
            Some(SearchHit {
                why: format!("{}{words}", fusion.explain(s.evidence())),
                id: memory.id,
                text: memory.text,
                project: memory.project,
                category: memory.category,
                score: s.relevance,
                similarity: s.cosine,
                bm25: s.bm25,
            })
        })
        .collect();
    Ok(SearchResults { results, mode: if hybrid { "hybrid".into() } else { "keywords".into() } })
}
