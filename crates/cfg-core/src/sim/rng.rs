//! A tiny seeded generator (SplitMix64) so the runner, the simulator and the
//! browser draw the same request schedule from the same seed, with no
//! dependency that differs between native and wasm.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Exponential with the given rate (Poisson inter-arrival times).
    pub fn exponential(&mut self, rate: f64) -> f64 {
        -(1.0 - self.next_f64()).ln() / rate
    }

    /// Gamma(shape, scale) by Marsaglia and Tsang; shape < 1 by boosting.
    pub fn gamma(&mut self, shape: f64, scale: f64) -> f64 {
        if shape < 1.0 {
            let u = self.next_f64().max(f64::MIN_POSITIVE);
            return self.gamma(shape + 1.0, scale) * u.powf(1.0 / shape);
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let x = self.normal();
            let v = (1.0 + c * x).powi(3);
            if v <= 0.0 {
                continue;
            }
            let u = self.next_f64();
            if u < 1.0 - 0.0331 * x.powi(4) || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
                return d * v * scale;
            }
        }
    }

    /// Standard normal by Box-Muller.
    fn normal(&mut self) -> f64 {
        let u1 = (1.0 - self.next_f64()).max(f64::MIN_POSITIVE);
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_have_the_right_means() {
        let mut r = SplitMix64::new(1);
        let n = 200_000;
        let mean = |f: &mut dyn FnMut() -> f64| (0..n).map(|_| f()).sum::<f64>() / n as f64;
        assert!((mean(&mut || r.next_f64()) - 0.5).abs() < 0.01);
        let mut r = SplitMix64::new(2);
        assert!((mean(&mut || r.exponential(4.0)) - 0.25).abs() < 0.01);
        let mut r = SplitMix64::new(3);
        assert!((mean(&mut || r.gamma(0.5, 2.0)) - 1.0).abs() < 0.03);
        let mut r = SplitMix64::new(4);
        assert!((mean(&mut || r.gamma(3.0, 1.0)) - 3.0).abs() < 0.05);
    }
}
