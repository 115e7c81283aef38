//! Wall-clock timings of the main statistics (run with `--release`):
//! `cargo run --release -p factpico-stats --example stats_speed`.
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use factpico_stats::{kendall_tau_b, pairwise_accuracy_tie_calibrated, pearson_r, spearman_rho};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn main() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let n = 100_000;
    let h: Vec<f64> = (0..n).map(|_| f64::from(rng.random_range(1..=4))).collect();
    let m: Vec<f64> = h.iter().map(|&x| 0.2 * x + rng.random::<f64>()).collect();
    let time = |name: &str, f: &dyn Fn() -> Option<f64>| {
        let t = Instant::now();
        let v = f();
        println!(
            "{name:<40} {:>9.2} ms  value {v:?}",
            t.elapsed().as_secs_f64() * 1e3
        );
    };
    time("kendall_tau_b n=100000", &|| {
        kendall_tau_b(&m, &h).unwrap().statistic
    });
    time("spearman_rho n=100000", &|| {
        spearman_rho(&m, &h).unwrap().statistic
    });
    time("pearson_r n=100000", &|| {
        pearson_r(&m, &h).unwrap().statistic
    });
    for k in [1_000, 3_000] {
        time(&format!("pairwise_accuracy_tie_calibrated n={k}"), &|| {
            pairwise_accuracy_tie_calibrated(&m[..k], &h[..k])
                .unwrap()
                .accuracy
        });
    }
}
