//! The bypass decision rules of [CAK24, §5], checked on the WLS variance matrix.
//!
//! Theorem 2 (pure DP, Laplace noise, variance ∝ 1/γ²): reallocating the budget of a parent with c
//! children of equal share γ_c to those children weakly decreases every diagonal element of
//! Var(V x̂) iff γ_c ≥ (c − 1) γ_l / 2 — with equal shares, iff c ≤ 3.
//! zCDP (Gaussian noise, variance ∝ 1/γ, the paragraph after Remark 2): only single-child parents
//! (the change is γ_l(blockdiag(J) − J), PSD iff c = 1), which is Algorithm 3's zCDP rule.
//!
//! `variance_change` builds the spine root → parent → c children → `leaves` blocks each, computes
//! diag(B (Aᵀ diag(p) A)⁻¹ Bᵀ) before and after the bypass, and returns the largest increase.

/// Noise model of the implementing mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BypassNoise {
    /// Laplace: precision ∝ γ² (pure ε-DP).
    PureDp,
    /// Gaussian: precision ∝ γ (ρ-zCDP).
    Zcdp,
}

/// Gauss–Jordan inverse with partial pivoting (small dense symmetric positive definite matrices).
pub fn invert(m: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let mut a: Vec<Vec<f64>> = m.to_vec();
    let mut inv: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect();
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| a[i][col].abs().partial_cmp(&a[j][col].abs()).expect("invariant: finite matrix entries"))?;
        if a[piv][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, piv);
        inv.swap(col, piv);
        let d = a[col][col];
        for j in 0..n {
            a[col][j] /= d;
            inv[col][j] /= d;
        }
        for i in 0..n {
            if i != col && a[i][col] != 0.0 {
                let f = a[i][col];
                for j in 0..n {
                    a[i][j] -= f * a[col][j];
                    inv[i][j] -= f * inv[col][j];
                }
            }
        }
    }
    Some(inv)
}

/// Largest change of a diagonal element of Var(V x̂) (V = every geounit of the spine, blocks
/// included) when the parent (share `g_parent`) with `c` children (each share `g_child`) is
/// bypassed. The root and the blocks have share 1. Negative or zero: the bypass helps (weakly).
pub fn variance_change(noise: BypassNoise, c: usize, leaves: usize, g_parent: f64, g_child: f64) -> f64 {
    // units: 0 root, 1 parent, 2..2+c children, blocks after
    let nb = c * leaves;
    let nu = 2 + c + nb;
    let mut a = vec![vec![0.0; nb]; nu];
    for b in 0..nb {
        a[0][b] = 1.0;
        a[1][b] = 1.0;
        a[2 + b / leaves][b] = 1.0;
        a[2 + c + b][b] = 1.0;
    }
    let diag = |shares: &[f64]| -> Vec<f64> {
        let p: Vec<f64> = shares.iter().map(|&g| if noise == BypassNoise::PureDp { g * g } else { g }).collect();
        let mut m = vec![vec![0.0; nb]; nb];
        for u in 0..nu {
            for i in 0..nb {
                for j in 0..nb {
                    m[i][j] += p[u] * a[u][i] * a[u][j];
                }
            }
        }
        let inv = invert(&m).expect("invariant: information matrix is invertible (blocks are measured)");
        (0..nu).map(|u| (0..nb).map(|i| (0..nb).map(|j| a[u][i] * inv[i][j] * a[u][j]).sum::<f64>()).sum()).collect()
    };
    let mut before = vec![1.0; nu];
    before[1] = g_parent;
    for k in 0..c {
        before[2 + k] = g_child;
    }
    let mut after = before.clone();
    after[1] = 0.0;
    for k in 0..c {
        after[2 + k] = g_child + g_parent;
    }
    let (d0, d1) = (diag(&before), diag(&after));
    d0.iter().zip(&d1).map(|(x, y)| (y - x) / x).fold(f64::NEG_INFINITY, f64::max)
}

/// Does bypassing help (no diagonal element increases, up to rounding)?
pub fn bypass_helps(noise: BypassNoise, c: usize, g_parent: f64, g_child: f64) -> bool {
    variance_change(noise, c, 2, g_parent, g_child) <= 1e-12
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::Rational;

    #[test]
    fn pure_dp_equal_shares_helps_iff_at_most_three_children() {
        for c in 1..=7 {
            assert_eq!(bypass_helps(BypassNoise::PureDp, c, 1.0, 1.0), c <= 3, "c = {c}");
        }
    }

    #[test]
    fn pure_dp_threshold_is_c_minus_1_over_2() {
        // Theorem 2: γ_c ≥ (c−1)γ_l/2; for c = 4 the flip is at γ_c = 1.5 γ_l
        for c in 2..=6 {
            let t = (c as f64 - 1.0) / 2.0;
            assert!(bypass_helps(BypassNoise::PureDp, c, 1.0, t * 1.0001), "c = {c} above threshold");
            assert!(!bypass_helps(BypassNoise::PureDp, c, 1.0, t * 0.98), "c = {c} below threshold");
        }
        // Remark 1, exactly: (γ_l+γ_c)² ≥ cγ_l² + γ_c² ⇔ 2γ_c ≥ (c−1)γ_l
        for c in 1..8u32 {
            for gc in 1..20u32 {
                let (gl, gc) = (Rational::from(2), Rational::from((gc, 3)));
                let lhs = Rational::from(&gl + &gc).square();
                let rhs = (gl.clone().square() * c) + gc.clone().square();
                assert_eq!(lhs >= rhs, Rational::from(&gc * 2u32) >= Rational::from(&gl * (c - 1)));
            }
        }
    }

    #[test]
    fn zcdp_only_single_child_parents() {
        assert!(variance_change(BypassNoise::Zcdp, 1, 2, 1.0, 1.0).abs() < 1e-12);
        for c in 2..=6 {
            assert!(!bypass_helps(BypassNoise::Zcdp, c, 1.0, 1.0), "c = {c}");
            // whatever the shares
            assert!(!bypass_helps(BypassNoise::Zcdp, c, 0.1, 10.0), "c = {c}");
        }
    }
}
