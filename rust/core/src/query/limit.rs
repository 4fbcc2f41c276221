//! Row caps: the effective limit a `records` call reads with, and the probe one row past it.

/// The effective row limit and the probe limit a clamped `records` call reads with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClampedLimit {
    /// The most rows the answer may hold.
    pub limit: u64,
    /// One row past `limit`: reading it tells whether storage held more.
    pub probe: u64,
}

/// Picks the effective row limit: the request when it sits inside the cap, the cap when the
/// request exceeds it or is absent, and `0` when either falls below zero.
pub fn resolve_limit(requested: Option<i64>, cap: i64) -> u64 {
    let limit = requested.map_or(cap, |value| value.min(cap));
    u64::try_from(limit).unwrap_or(0)
}

/// Clamps a request to the cap and adds the one-row probe that detects truncation.
pub fn clamp_limit(requested: Option<i64>, cap: i64) -> ClampedLimit {
    let limit = resolve_limit(requested, cap);
    ClampedLimit {
        limit,
        probe: limit.saturating_add(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absent_request_reads_the_cap() {
        assert_eq!(resolve_limit(None, 100), 100);
        assert_eq!(
            clamp_limit(None, 100),
            ClampedLimit {
                limit: 100,
                probe: 101
            }
        );
    }

    #[test]
    fn a_request_can_only_lower_the_cap() {
        assert_eq!(clamp_limit(Some(10), 100).limit, 10);
        assert_eq!(clamp_limit(Some(10), 100).probe, 11);
        assert_eq!(clamp_limit(Some(500), 100).limit, 100);
        assert_eq!(clamp_limit(Some(500), 100).probe, 101);
        assert_eq!(clamp_limit(Some(i64::MAX), 7).limit, 7);
    }

    #[test]
    fn zero_still_probes_one_row() {
        assert_eq!(
            clamp_limit(Some(0), 100),
            ClampedLimit { limit: 0, probe: 1 }
        );
    }

    #[test]
    fn negatives_floor_at_zero() {
        assert_eq!(resolve_limit(Some(-5), 100), 0);
        assert_eq!(resolve_limit(Some(i64::MIN), 100), 0);
        assert_eq!(resolve_limit(None, -1), 0);
        assert_eq!(resolve_limit(Some(3), -1), 0);
    }

    #[test]
    fn the_probe_saturates() {
        assert_eq!(clamp_limit(None, i64::MAX).probe, i64::MAX as u64 + 1);
    }
}
