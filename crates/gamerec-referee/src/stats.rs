//! Match statistics, free of I/O: trinomial (win/draw/loss) and pentanomial
//! (game-pair) counts, Elo with a 95% interval, normalized Elo (nElo), the
//! likelihood of superiority (LOS) and the sequential probability ratio
//! test (SPRT) in its logistic and normalized Elo models.
//!
//! Formulas (M. Van den Bergh, "Comments on Normalized Elo" and "A
//! practical introduction to the GSPRT"; the same ones fishtest, cutechess
//! and fastchess report):
//!
//! - A sample is `n` outcomes with scores `a_i` (trinomial: games scored
//!   0, 1/2, 1; pentanomial: game pairs scored 0, 1/4, .., 1, a pair's
//!   points over 2), mean `s` and variance `v = Σ p_i (a_i - s)²`.
//! - Elo `= -400 log10(1/s - 1)`; its 95% error is half the Elo width of
//!   `s ± z √(v/n)` with `z = Φ⁻¹(0.975)`.
//! - nElo `= (s - 1/2) / (k √v) · 800 / ln 10` with `k = 1` for games and
//!   `k = √2` for pairs (a pair's variance is half of two games'); its error
//!   is `z / (k √n) · 800 / ln 10`.
//! - LOS `= Φ((s - 1/2) / √(v/n))`.
//! - SPRT: the generalized SPRT's log-likelihood ratio
//!   `LLR = n Σ o_i ln(p1_i / p0_i)` where `o` is the observed distribution
//!   and `p0`, `p1` the maximum-likelihood distributions under H0 and H1:
//!   logistic model, expected score `s_i = 1 / (1 + 10^(-elo_i/400))`
//!   (Van den Bergh, "Comments on Normalized Elo", proposition 1.1);
//!   normalized model, `(μ - 1/2)/σ = t_i` with `t_i = k · elo_i / (800 /
//!   ln 10)` (section 4.1, its fixed-point iteration). A count of 0 is taken as
//!   0.001 (so all-draw or all-win samples are defined). Bounds:
//!   `ln(β / (1 - α))` and `ln((1 - β) / α)`.
//!
//! Degenerate samples are defined, not NaN: with `v = 0` the Elo error and
//! nElo error are 0, nElo is 0 at `s = 1/2` and ±∞ otherwise, LOS is 1, 1/2
//! or 0; Elo is ±∞ at `s = 1` or `s = 0` (and an interval end outside
//! `(0, 1)` gives an infinite error).

use serde::{Deserialize, Serialize};

/// `Φ⁻¹(0.975)`: the two-sided 95% z-score.
pub const Z95: f64 = 1.959_963_984_540_054;

/// `800 / ln 10`: converts a standardized score difference to nElo.
pub const NELO_SCALE: f64 = 800.0 / std::f64::consts::LN_10;

/// What a zero count becomes in the SPRT's LLR.
pub const LLR_ZERO_COUNT: f64 = 1e-3;

/// Win/draw/loss counts, from the first player's point of view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trinomial {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Trinomial {
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Adds one game scored 0, 1 (half points) or 2.
    pub fn add(&mut self, half_points: u8) {
        match half_points {
            0 => self.losses += 1,
            1 => self.draws += 1,
            _ => self.wins += 1,
        }
    }

    /// Sums two tallies.
    pub fn merged(&self, other: &Trinomial) -> Trinomial {
        Trinomial {
            wins: self.wins + other.wins,
            draws: self.draws + other.draws,
            losses: self.losses + other.losses,
        }
    }

    /// Draws over games (0 with no games).
    pub fn draw_ratio(&self) -> f64 {
        if self.games() == 0 {
            0.0
        } else {
            self.draws as f64 / self.games() as f64
        }
    }

    /// Points scored (a win 1, a draw 1/2).
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    fn sample(&self) -> [(f64, f64); 3] {
        [
            (0.0, self.losses as f64),
            (0.5, self.draws as f64),
            (1.0, self.wins as f64),
        ]
    }
}

/// Game-pair counts by the pair's points for the first player: index 0 is
/// 0 points (LL), 1 is 1/2 (LD), 2 is 1 (WL or DD), 3 is 1 1/2 (WD), 4 is 2 (WW).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Adds a pair whose games scored `a` and `b` half points (0..=2 each).
    pub fn add(&mut self, a: u8, b: u8) {
        let i = usize::from(a.min(2) + b.min(2));
        self.0[i] += 1;
    }

    /// Sums two tallies.
    pub fn merged(&self, other: &Pentanomial) -> Pentanomial {
        let mut out = *self;
        for (o, x) in out.0.iter_mut().zip(other.0) {
            *o += x;
        }
        out
    }

    fn sample(&self) -> [(f64, f64); 5] {
        std::array::from_fn(|i| (i as f64 / 4.0, self.0[i] as f64))
    }
}

/// Count, mean and variance of a sample given as (score, count) pairs.
fn moments(sample: &[(f64, f64)]) -> (f64, f64, f64) {
    let n: f64 = sample.iter().map(|(_, c)| c).sum();
    if n <= 0.0 {
        return (0.0, 0.5, 0.0);
    }
    let mean = sample.iter().map(|(a, c)| a * c).sum::<f64>() / n;
    let var = sample
        .iter()
        .map(|(a, c)| c * (a - mean) * (a - mean))
        .sum::<f64>()
        / n;
    (n, mean, var)
}

/// Elo difference of an expected score: ±∞ at 1 and 0 (and beyond).
pub fn elo_of_score(score: f64) -> f64 {
    if score >= 1.0 {
        f64::INFINITY
    } else if score <= 0.0 {
        f64::NEG_INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Expected score of an Elo difference (logistic curve).
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The complementary error function, to about 1e-14: the Maclaurin series
/// of erf below |x| = 2.5, a continued fraction (modified Lentz) above.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x.abs() < 2.5 {
        // erf(x) = 2/√π Σ (-1)^k x^(2k+1) / (k! (2k+1))
        let mut term = x;
        let mut sum = x;
        let x2 = x * x;
        for k in 1..200 {
            term *= -x2 / k as f64;
            let add = term / (2 * k + 1) as f64;
            sum += add;
            if add.abs() < 1e-17 * sum.abs() {
                break;
            }
        }
        return 1.0 - 2.0 / std::f64::consts::PI.sqrt() * sum;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x > 27.0 {
        return 0.0;
    }
    // erfc(x) = e^(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for k in 1..500 {
        let a = k as f64 / 2.0;
        d = x + a * d;
        d = if d.abs() < tiny { tiny } else { d };
        c = x + a / c;
        c = if c.abs() < tiny { tiny } else { c };
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / std::f64::consts::PI.sqrt() / f
}

/// The root of `Σ o_i φ_i / (1 + θ φ_i) = 0` for θ between `-1/max φ` and
/// `-1/min φ` (the sum falls from +∞ to -∞ there), by bisection to the
/// last bit. `None` when φ does not change sign.
fn solve_theta(observed: &[f64], phi: &[f64]) -> Option<f64> {
    let max = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = phi.iter().copied().fold(f64::INFINITY, f64::min);
    if !(max > 0.0 && min < 0.0) {
        return None;
    }
    let f = |theta: f64| -> f64 {
        observed
            .iter()
            .zip(phi)
            .map(|(o, p)| o * p / (1.0 + theta * p))
            .sum()
    };
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    for _ in 0..2000 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The distribution closest (maximum likelihood) to the observed one with
/// expected score `s` (Van den Bergh, "Comments on Normalized Elo", prop. 1.1).
fn mle_logistic(scores: &[f64], observed: &[f64], s: f64) -> Vec<f64> {
    let phi: Vec<f64> = scores.iter().map(|a| a - s).collect();
    match solve_theta(observed, &phi) {
        Some(theta) => observed
            .iter()
            .zip(&phi)
            .map(|(o, p)| o / (1.0 + theta * p))
            .collect(),
        None => observed.to_vec(),
    }
}

/// The distribution closest (maximum likelihood) to the observed one with
/// normalized score `(μ - 1/2) / σ = t` (same paper, section 4.1): the
/// fixed point of `p_i = o_i / (1 + θ φ_i)` with
/// `φ_i = a_i - 1/2 - t σ (1 + ((a_i - μ)/σ)²) / 2`, from the uniform distribution.
fn mle_normalized(scores: &[f64], observed: &[f64], t: f64) -> Vec<f64> {
    let mut p = vec![1.0 / scores.len() as f64; scores.len()];
    for _ in 0..10_000 {
        let mu: f64 = scores.iter().zip(&p).map(|(a, q)| a * q).sum();
        let var: f64 = scores
            .iter()
            .zip(&p)
            .map(|(a, q)| q * (a - mu) * (a - mu))
            .sum();
        let sigma = var.sqrt();
        let phi: Vec<f64> = scores
            .iter()
            .map(|a| {
                let z = (a - mu) / sigma;
                a - 0.5 - 0.5 * t * sigma * (1.0 + z * z)
            })
            .collect();
        let Some(theta) = solve_theta(observed, &phi) else {
            return observed.to_vec();
        };
        let mut change: f64 = 0.0;
        for ((q, o), f) in p.iter_mut().zip(observed).zip(&phi) {
            let next = o / (1.0 + theta * f);
            change = change.max((next - *q).abs());
            *q = next;
        }
        if change < 1e-14 {
            break;
        }
    }
    p
}

/// Point estimates with their 95% intervals.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Outcomes counted (games or pairs).
    pub n: f64,
    /// Mean score, 0..1.
    pub score: f64,
    /// Variance of one outcome's score.
    pub variance: f64,
    /// Elo difference.
    pub elo: f64,
    /// Half width of the 95% Elo interval.
    pub elo_error: f64,
    /// Normalized Elo.
    pub nelo: f64,
    /// Half width of the 95% nElo interval.
    pub nelo_error: f64,
    /// Likelihood of superiority, 0..1.
    pub los: f64,
}

fn estimate(sample: &[(f64, f64)], k: f64) -> Option<Estimate> {
    let (n, score, variance) = moments(sample);
    if n <= 0.0 {
        return None;
    }
    let se = (variance / n).sqrt();
    let degenerate = variance <= 0.0;
    let elo = elo_of_score(score);
    let elo_error = if degenerate {
        0.0
    } else {
        (elo_of_score(score + Z95 * se) - elo_of_score(score - Z95 * se)) / 2.0
    };
    let nelo = if degenerate {
        if score == 0.5 {
            0.0
        } else {
            f64::INFINITY.copysign(score - 0.5)
        }
    } else {
        (score - 0.5) / (k * variance.sqrt()) * NELO_SCALE
    };
    let nelo_error = if degenerate {
        0.0
    } else {
        Z95 / (k * n.sqrt()) * NELO_SCALE
    };
    let los = if degenerate {
        if score > 0.5 {
            1.0
        } else if score < 0.5 {
            0.0
        } else {
            0.5
        }
    } else {
        normal_cdf((score - 0.5) / se)
    };
    Some(Estimate {
        n,
        score,
        variance,
        elo,
        elo_error,
        nelo,
        nelo_error,
        los,
    })
}

/// Estimates from games (`None` with no games).
pub fn trinomial_estimate(t: &Trinomial) -> Option<Estimate> {
    estimate(&t.sample(), 1.0)
}

/// Estimates from game pairs (`None` with no pairs).
pub fn pentanomial_estimate(p: &Pentanomial) -> Option<Estimate> {
    estimate(&p.sample(), std::f64::consts::SQRT_2)
}

/// The Elo model the SPRT's hypotheses are stated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EloModel {
    /// Logistic Elo (expected score `1 / (1 + 10^(-elo/400))`).
    Logistic,
    /// Normalized Elo (score difference over its standard deviation).
    Normalized,
}

impl std::str::FromStr for EloModel {
    type Err = String;
    fn from_str(s: &str) -> Result<EloModel, String> {
        match s {
            "logistic" => Ok(EloModel::Logistic),
            "normalized" => Ok(EloModel::Normalized),
            _ => Err(format!("unknown Elo model '{s}' (logistic or normalized)")),
        }
    }
}

/// The SPRT's decision so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtDecision {
    /// Keep playing.
    Continue,
    /// H0 accepted: the difference is `elo0` or less.
    H0,
    /// H1 accepted: the difference is `elo1` or more.
    H1,
}

/// A sequential probability ratio test of `elo0` against `elo1`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Elo of H0.
    pub elo0: f64,
    /// Elo of H1.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
    /// The model `elo0` and `elo1` are stated in.
    pub model: EloModel,
}

impl Sprt {
    /// Checks the parameters: `elo0 < elo1`, `0 < alpha, beta` and `alpha + beta < 1`.
    pub fn new(
        elo0: f64,
        elo1: f64,
        alpha: f64,
        beta: f64,
        model: EloModel,
    ) -> Result<Sprt, String> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err("SPRT: elo0 must be less than elo1".into());
        }
        if !(alpha > 0.0 && beta > 0.0 && alpha + beta < 1.0) {
            return Err("SPRT: alpha and beta must be above 0 with alpha + beta below 1".into());
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        })
    }

    /// (lower, upper) LLR bounds.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    fn llr(&self, sample: &[(f64, f64)], k: f64) -> f64 {
        let regular: Vec<(f64, f64)> = sample
            .iter()
            .map(|&(a, c)| (a, if c == 0.0 { LLR_ZERO_COUNT } else { c }))
            .collect();
        let n: f64 = regular.iter().map(|(_, c)| c).sum();
        let scores: Vec<f64> = regular.iter().map(|(a, _)| *a).collect();
        let observed: Vec<f64> = regular.iter().map(|(_, c)| c / n).collect();
        let (p0, p1) = match self.model {
            EloModel::Logistic => (
                mle_logistic(&scores, &observed, score_of_elo(self.elo0)),
                mle_logistic(&scores, &observed, score_of_elo(self.elo1)),
            ),
            EloModel::Normalized => (
                mle_normalized(&scores, &observed, k * self.elo0 / NELO_SCALE),
                mle_normalized(&scores, &observed, k * self.elo1 / NELO_SCALE),
            ),
        };
        n * observed
            .iter()
            .zip(p0.iter().zip(&p1))
            .map(|(o, (a, b))| o * (b.ln() - a.ln()))
            .sum::<f64>()
    }

    /// The LLR of game results.
    pub fn llr_trinomial(&self, t: &Trinomial) -> f64 {
        if t.games() == 0 {
            return 0.0;
        }
        self.llr(&t.sample(), 1.0)
    }

    /// The LLR of game-pair results.
    pub fn llr_pentanomial(&self, p: &Pentanomial) -> f64 {
        if p.pairs() == 0 {
            return 0.0;
        }
        self.llr(&p.sample(), std::f64::consts::SQRT_2)
    }

    /// Where `llr` stands against the bounds.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::H1
        } else if llr <= lower {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfc_matches_known_values() {
        // Values from Abramowitz and Stegun table 7.1 and Wolfram.
        for (x, want) in [
            (0.0, 1.0),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_13),
            (2.0, 0.004_677_734_981_047_266),
            (2.5, 0.000_406_952_017_444_959),
            (3.0, 2.209_049_699_858_544e-5),
            (-1.0, 1.842_700_792_949_715),
        ] {
            let got = erfc(x);
            assert!(
                (got - want).abs() < 1e-13 * want.max(1e-3),
                "erfc({x}) = {got}, want {want}"
            );
        }
        assert!((normal_cdf(Z95) - 0.975).abs() < 1e-12);
    }

    #[test]
    fn pair_indices_follow_points() {
        let mut p = Pentanomial::default();
        p.add(2, 0);
        p.add(1, 1);
        p.add(2, 2);
        p.add(0, 1);
        assert_eq!(p.0, [0, 1, 2, 0, 1]);
        let mut t = Trinomial::default();
        t.add(2);
        t.add(1);
        assert_eq!((t.wins, t.draws, t.losses, t.points()), (1, 1, 0, 1.5));
    }

    #[test]
    fn sprt_checks_its_parameters() {
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05, EloModel::Logistic).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.5, 0.5, EloModel::Logistic).is_err());
        let s = Sprt::new(0.0, 5.0, 0.05, 0.05, EloModel::Normalized).unwrap();
        let (lo, hi) = s.bounds();
        assert!((lo + 2.944_438_979).abs() < 1e-8 && (hi - 2.944_438_979).abs() < 1e-8);
        assert_eq!(s.decide(3.0), SprtDecision::H1);
        assert_eq!(s.decide(-3.0), SprtDecision::H0);
        assert_eq!(s.decide(0.0), SprtDecision::Continue);
    }
}
