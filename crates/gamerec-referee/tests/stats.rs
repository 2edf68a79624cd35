//! `stats` against an independent Python implementation of the published
//! formulas (`tests/stats_reference.py`, standard library only), on fixed
//! trinomial and pentanomial counts including all draws, all wins and
//! all losses: every value equal to 1e-6 (relative above 1).

use std::path::PathBuf;

use gamerec_referee::stats::{
    EloModel, Estimate, Pentanomial, Sprt, Trinomial, pentanomial_estimate, trinomial_estimate,
};

fn python() -> Option<PathBuf> {
    let python =
        std::env::var_os("GAMEREC_PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from);
    gamerec_testkit::peer(python.to_str()?)
}

fn close(got: f64, want: f64) -> bool {
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= 1e-6 * want.abs().max(1.0)
}

fn value(estimate: &Estimate, key: &str) -> f64 {
    match key {
        "score" => estimate.score,
        "elo" => estimate.elo,
        "elo_error" => estimate.elo_error,
        "nelo" => estimate.nelo,
        "nelo_error" => estimate.nelo_error,
        "los" => estimate.los,
        other => panic!("unknown key {other}"),
    }
}

#[test]
fn statistics_equal_the_python_reference() {
    let Some(python) = python() else { return };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/stats_reference.py");
    let out = std::process::Command::new(&python)
        .arg(script)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let (mut checked, mut cases, mut edge_cases) = (0, 0, 0);
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let kind = words.next().unwrap();
        let width = if kind == "tri" { 3 } else { 5 };
        let counts: Vec<u64> = words
            .by_ref()
            .take(width)
            .map(|w| w.parse().unwrap())
            .collect();
        let (estimate, tri, penta) = if kind == "tri" {
            let t = Trinomial {
                wins: counts[0],
                draws: counts[1],
                losses: counts[2],
            };
            (trinomial_estimate(&t).unwrap(), Some(t), None)
        } else {
            let p = Pentanomial(counts.clone().try_into().unwrap());
            (pentanomial_estimate(&p).unwrap(), None, Some(p))
        };
        if estimate.variance == 0.0 {
            edge_cases += 1;
        }
        cases += 1;
        for pair in words {
            let (key, want) = pair.split_once('=').unwrap();
            let want: f64 = want.parse().unwrap();
            let got = if let Some(params) = key.strip_prefix("llr:") {
                let p: Vec<&str> = params.split(':').collect();
                let model: EloModel = p[0].parse().unwrap();
                let f = |i: usize| p[i].parse::<f64>().unwrap();
                let sprt = Sprt::new(f(1), f(2), f(3), f(4), model).unwrap();
                match (&tri, &penta) {
                    (Some(t), _) => sprt.llr_trinomial(t),
                    (_, Some(p)) => sprt.llr_pentanomial(p),
                    _ => unreachable!(),
                }
            } else {
                value(&estimate, key)
            };
            assert!(
                close(got, want),
                "{kind} {counts:?} {key}: got {got}, reference {want}"
            );
            checked += 1;
        }
    }
    assert!(
        cases >= 20 && checked >= 200,
        "{cases} cases, {checked} values"
    );
    assert!(edge_cases >= 6, "all-draw/all-win/all-loss cases missing");
}

#[test]
fn sprt_decides_clear_samples() {
    let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05, EloModel::Logistic).unwrap();
    let strong = Pentanomial([10, 50, 200, 120, 40]);
    let weak = Pentanomial([40, 120, 200, 50, 10]);
    use gamerec_referee::stats::SprtDecision;
    assert_eq!(sprt.decide(sprt.llr_pentanomial(&strong)), SprtDecision::H1);
    assert_eq!(sprt.decide(sprt.llr_pentanomial(&weak)), SprtDecision::H0);
    assert_eq!(sprt.llr_pentanomial(&Pentanomial::default()), 0.0);
    let all_wins = Trinomial {
        wins: 200,
        draws: 0,
        losses: 0,
    };
    assert_eq!(sprt.decide(sprt.llr_trinomial(&all_wins)), SprtDecision::H1);
}
