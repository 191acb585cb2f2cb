//! Logistic regression, pure: `P(y = 1) = sigmoid(x . beta)` fitted by Newton's method with an
//! L2 penalty. The advisor's decision and the learned fusion weights both fit with it.

pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Fits `beta` to rows `x` (each starting with 1 for the intercept) and labels `y` in {0, 1},
/// with `l2` on every coefficient but the first (the intercept).
pub fn fit(x: &[Vec<f64>], y: &[f64], l2: f64) -> Vec<f64> {
    let k = x.first().map_or(1, Vec::len);
    let mut beta = vec![0.0; k];
    // A whisker of penalty on every coefficient, the intercept too, keeps the system solvable
    // when inputs are collinear or a class is separable; it moves a well-posed fit by nothing
    // one could see.
    const RIDGE: f64 = 1e-6;
    for _ in 0..100 {
        // Gradient and Hessian of the penalised negative log-likelihood.
        let mut grad = vec![0.0; k];
        let mut hess = vec![vec![0.0; k]; k];
        for (xi, yi) in x.iter().zip(y) {
            let p = sigmoid(xi.iter().zip(&beta).map(|(a, b)| a * b).sum());
            let w = (p * (1.0 - p)).max(1e-9);
            for a in 0..k {
                grad[a] += (p - yi) * xi[a];
                for b in 0..k {
                    hess[a][b] += w * xi[a] * xi[b];
                }
            }
        }
        for a in 0..k {
            let penalty = if a == 0 { RIDGE } else { l2.max(0.0) + RIDGE };
            grad[a] += penalty * beta[a];
            hess[a][a] += penalty;
        }
        let Some(step) = solve(hess, grad).filter(|s| s.iter().all(|x| x.is_finite())) else { break };
        let size: f64 = step.iter().map(|s| s.abs()).fold(0.0, f64::max);
        for (b, s) in beta.iter_mut().zip(&step) {
            *b -= s;
        }
        if size < 1e-9 {
            break;
        }
    }
    beta
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None` if singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let (above, below) = a.split_at_mut(col + 1);
        let pivot_row = &above[col];
        for (r, row) in below.iter_mut().enumerate() {
            let f = row[col] / pivot_row[col];
            for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * p;
            }
            b[col + 1 + r] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|c| a[row][c] * x[c]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}
