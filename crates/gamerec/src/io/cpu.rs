//! Getting worker threads onto their own cores at once.
//!
//! A new thread starts on its parent's core and, on a machine whose other
//! cores are idle, may wait there for milliseconds (until the scheduler's
//! next balancing pass) while the parent works: measured on this project's
//! 2-core machine, about 4 ms of a 45 ms PGN check ran on one core. A worker
//! that moves itself off its parent's core before it starts avoids that.

/// The core the calling thread runs on (where known).
pub fn current() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        Some(rustix::thread::sched_getcpu())
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Moves the calling thread, worker number `index` of a thread that ran on
/// `parent` (from [`current`]), to the `index`-th allowed core after its
/// parent's, then gives it back every core it was allowed: the scheduler
/// stays free to place it later. Worker 0 stays where it is, beside a
/// parent that waits; a parent that works too counts as worker 0.
pub fn spread(parent: Option<usize>, index: usize) {
    #[cfg(target_os = "linux")]
    if let Some(parent) = parent {
        use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};
        let Ok(allowed) = sched_getaffinity(None) else {
            return;
        };
        let cores: Vec<usize> = (0..CpuSet::MAX_CPU)
            .filter(|&c| allowed.is_set(c))
            .collect();
        if cores.len() < 2 {
            return;
        }
        let from = cores.iter().position(|&c| c >= parent).unwrap_or(0);
        let target = cores[(from + index) % cores.len()];
        if target == parent {
            return;
        }
        let mut one = CpuSet::new();
        one.set(target);
        if sched_setaffinity(None, &one).is_ok() {
            let _ = sched_setaffinity(None, &allowed);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (parent, index);
}

#[cfg(test)]
mod tests {
    /// Worker 1 moves to the core after its parent's, worker 0 stays, and
    /// both keep every core they had.
    #[cfg(target_os = "linux")]
    #[test]
    fn workers_spread_over_the_cores_and_keep_their_mask() {
        use rustix::thread::{CpuSet, sched_getaffinity};
        let before = sched_getaffinity(None).unwrap();
        let cores: Vec<usize> = (0..CpuSet::MAX_CPU).filter(|&c| before.is_set(c)).collect();
        let parent = super::current();
        let worker = |index| {
            std::thread::spawn(move || {
                super::spread(parent, index);
                (super::current(), sched_getaffinity(None).unwrap())
            })
            .join()
            .unwrap()
        };
        let (on, mask) = worker(1);
        assert!(mask == before, "the worker keeps every core it had");
        if cores.len() > 1 {
            let p = cores.iter().position(|&c| Some(c) == parent).unwrap_or(0);
            assert_eq!(
                on,
                Some(cores[(p + 1) % cores.len()]),
                "cores {cores:?}, parent {parent:?}"
            );
        }
        let (_, mask) = worker(0);
        assert!(mask == before);
    }
}
