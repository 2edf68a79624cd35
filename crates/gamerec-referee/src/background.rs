//! The event's file writes on a thread of their own, off the move's path:
//! a state file's fsync (every move) and the reports written at a game's
//! end would otherwise hold up a tokio worker, and with it the opponent's
//! next `respond` or the other games' moves.
//!
//! Jobs run one at a time in the order given. A game's state saves are
//! coalesced: a save queued while an older one of the same game still
//! waits replaces it (only the latest state is written).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

type Task = Box<dyn FnOnce() + Send>;

enum Job {
    /// Write this game's state (its number, the work).
    Save(u32, Task),
    /// Anything else.
    Run(Task),
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// Jobs given (a coalesced save counts once).
    given: u64,
    /// Jobs done.
    done: u64,
    closed: bool,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    /// Signals the thread: a job or the close.
    work: Condvar,
    /// Signals waiters: a job is done.
    progress: Condvar,
}

/// A handle on the writer thread; clones share it. The thread ends when
/// [`Background::close`] is called and the queue is empty.
#[derive(Clone)]
pub struct Background {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Background {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Background")
    }
}

impl Background {
    /// Starts the thread (or, if no thread can be started, a handle that
    /// runs every job at once on the caller's thread).
    pub fn start() -> Background {
        let shared = Arc::new(Shared::default());
        let worker = shared.clone();
        let started = std::thread::Builder::new()
            .name("argus-writer".into())
            .spawn(move || work(&worker));
        if started.is_err()
            && let Ok(mut q) = shared.queue.lock()
        {
            q.closed = true;
        }
        Background { shared }
    }

    /// Queues `game`'s state save (replacing one of the same game not yet
    /// started).
    pub fn save(&self, game: u32, task: impl FnOnce() + Send + 'static) {
        self.push(Job::Save(game, Box::new(task)));
    }

    /// Queues any other write.
    pub fn run(&self, task: impl FnOnce() + Send + 'static) {
        self.push(Job::Run(Box::new(task)));
    }

    fn push(&self, job: Job) {
        let Ok(mut q) = self.shared.queue.lock() else {
            return run_now(job);
        };
        if q.closed {
            drop(q);
            return run_now(job);
        }
        if let Job::Save(game, _) = &job
            && let Some(slot) = q
                .jobs
                .iter_mut()
                .find(|j| matches!(j, Job::Save(g, _) if g == game))
        {
            *slot = job;
            return;
        }
        q.jobs.push_back(job);
        q.given += 1;
        drop(q);
        self.shared.work.notify_one();
    }

    /// Blocks until every job given before the call is done.
    pub fn flush(&self) {
        let Ok(mut q) = self.shared.queue.lock() else {
            return;
        };
        let target = q.given;
        while q.done < target {
            q = match self.shared.progress.wait(q) {
                Ok(q) => q,
                Err(_) => return,
            };
        }
    }

    /// Runs what is queued, then ends the thread; later jobs run on the
    /// caller's thread. Blocks until the queue is empty.
    pub fn close(&self) {
        if let Ok(mut q) = self.shared.queue.lock() {
            q.closed = true;
        }
        self.shared.work.notify_all();
        self.flush();
    }
}

fn run_now(job: Job) {
    match job {
        Job::Save(_, task) | Job::Run(task) => task(),
    }
}

fn work(shared: &Shared) {
    loop {
        let job = {
            let Ok(mut q) = shared.queue.lock() else {
                return;
            };
            loop {
                if let Some(job) = q.jobs.pop_front() {
                    break job;
                }
                if q.closed {
                    drop(q);
                    shared.progress.notify_all();
                    return;
                }
                q = match shared.work.wait(q) {
                    Ok(q) => q,
                    Err(_) => return,
                };
            }
        };
        // A job that panics is one failed write, not a stopped writer.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_now(job)));
        if let Ok(mut q) = shared.queue.lock() {
            q.done += 1;
        }
        shared.progress.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;

    /// Jobs run in order; a game's queued saves collapse into its latest;
    /// `flush` waits for what was given; after `close` jobs run at once.
    #[test]
    fn order_coalescing_flush_and_close() {
        let bg = Background::start();
        let log = Arc::new(Mutex::new(Vec::new()));
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        // Hold the thread so the saves below queue up behind this job.
        let g = gate.clone();
        bg.run(move || {
            let (open, cv) = &*g;
            let mut open = open.lock().unwrap();
            while !*open {
                open = cv.wait(open).unwrap();
            }
        });
        for i in 0..5 {
            let l = log.clone();
            bg.save(1, move || l.lock().unwrap().push(format!("save 1 #{i}")));
            let l = log.clone();
            bg.save(2, move || l.lock().unwrap().push(format!("save 2 #{i}")));
        }
        let l = log.clone();
        bg.run(move || l.lock().unwrap().push("report".into()));
        {
            let (open, cv) = &*gate;
            *open.lock().unwrap() = true;
            cv.notify_all();
        }
        bg.flush();
        assert_eq!(
            *log.lock().unwrap(),
            ["save 1 #4", "save 2 #4", "report"],
            "the latest save of each game, in the order first given"
        );
        bg.close();
        let n = Arc::new(AtomicU32::new(0));
        let m = n.clone();
        bg.run(move || {
            std::thread::sleep(Duration::from_millis(5));
            m.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(n.load(Ordering::SeqCst), 1, "ran on the caller's thread");
    }
}
