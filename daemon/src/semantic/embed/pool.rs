//! The arithmetic around the model, with no I/O: how token ids are cut into windows the model
//! can take, how a window's token states become one vector (mean over the attention mask, then
//! unit length), how the windows of a long text are pooled, and cosine similarity.

use crate::retrieval::similarity::normalize;

/// Splits a tokenised text (`[CLS] tokens... [SEP]`) into windows of at most `max_tokens`, each
/// framed by the same first and last token, so that a long text keeps its tail. A text that fits
/// is one window, unchanged.
pub fn windows(ids: &[u32], max_tokens: usize) -> Vec<Vec<u32>> {
    let max_tokens = max_tokens.max(3);
    if ids.len() <= max_tokens {
        return vec![ids.to_vec()];
    }
    let (first, last) = (ids[0], ids[ids.len() - 1]);
    let inner = &ids[1..ids.len() - 1];
    inner
        .chunks(max_tokens - 2)
        .map(|chunk| {
            let mut w = Vec::with_capacity(chunk.len() + 2);
            w.push(first);
            w.extend_from_slice(chunk);
            w.push(last);
            w
        })
        .collect()
}

/// Mean of the token states whose mask is set: `states` is `[tokens x dim]` row-major.
pub fn mean_pool(states: &[f32], mask: &[i64], dim: usize) -> Vec<f32> {
    let mut out = vec![0f32; dim];
    let mut count = 0f32;
    for (t, &m) in mask.iter().enumerate() {
        if m == 0 {
            continue;
        }
        count += 1.0;
        for (o, s) in out.iter_mut().zip(&states[t * dim..(t + 1) * dim]) {
            *o += s;
        }
    }
    if count > 0.0 {
        for o in &mut out {
            *o /= count;
        }
    }
    out
}

/// One vector for a text embedded in several windows: the windows' vectors weighted by their
/// token counts, then unit length. One window passes through unchanged.
pub fn pool_windows(vectors: &[Vec<f32>], weights: &[usize]) -> Vec<f32> {
    if vectors.len() == 1 {
        return vectors[0].clone();
    }
    let dim = vectors.first().map_or(0, Vec::len);
    let mut out = vec![0f32; dim];
    for (v, &w) in vectors.iter().zip(weights) {
        for (o, x) in out.iter_mut().zip(v) {
            *o += x * w as f32;
        }
    }
    normalize(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::similarity::cosine;

    #[test]
    fn short_texts_are_one_window() {
        assert_eq!(windows(&[101, 5, 6, 102], 8), vec![vec![101, 5, 6, 102]]);
    }

    #[test]
    fn long_texts_keep_every_token_in_framed_windows() {
        let ids: Vec<u32> = std::iter::once(101).chain(1..=10).chain(std::iter::once(102)).collect();
        let w = windows(&ids, 6);
        assert_eq!(w, vec![vec![101, 1, 2, 3, 4, 102], vec![101, 5, 6, 7, 8, 102], vec![101, 9, 10, 102]]);
        let inner: Vec<u32> = w.iter().flat_map(|w| w[1..w.len() - 1].to_vec()).collect();
        assert_eq!(inner, (1..=10).collect::<Vec<_>>(), "no token is dropped");
        assert!(w.iter().all(|w| w.len() <= 6));
    }

    #[test]
    fn mean_pool_ignores_padding() {
        // Two real tokens and one pad token of dimension 2.
        let states = [1.0, 3.0, 3.0, 5.0, 100.0, 100.0];
        assert_eq!(mean_pool(&states, &[1, 1, 0], 2), vec![2.0, 4.0]);
    }

    #[test]
    fn pooled_windows_lean_toward_the_longer_window() {
        let v = pool_windows(&[vec![1.0, 0.0], vec![0.0, 1.0]], &[3, 1]);
        assert!(v[0] > v[1]);
        assert!((cosine(&v, &v) - 1.0).abs() < 1e-6);
        assert_eq!(pool_windows(&[vec![0.6, 0.8]], &[5]), vec![0.6, 0.8]);
    }
}
