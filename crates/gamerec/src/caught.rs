//! Panics of a dependency turned into errors. arrow-rs, parquet-rs and the
//! fst crate trust some of what a file says and panic on files damaged that
//! way; [`catch`] runs such a read and returns the panic's message instead.
//! A program that shows its own error for it calls [`quiet_caught_panics`]
//! once, so the panic hook does not print a panic (and a backtrace) for an
//! input that was only damaged.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Whether this thread is inside [`catch`].
    static CATCHING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`; a panic inside it is returned as its message.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    let outer = CATCHING.with(|c| c.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(outer));
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_owned())
    })
}

/// From now on, the panic hook stays silent for panics inside [`catch`]
/// (their messages are in the errors it returns); every other panic goes to
/// the hook that was in place. Call it once, from a program's start.
pub fn quiet_caught_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !CATCHING.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_its_message_and_other_results_pass() {
        quiet_caught_panics();
        assert_eq!(catch(|| 7), Ok(7));
        assert_eq!(
            catch(|| -> u8 { panic!("bad {}", 1) }),
            Err("bad 1".to_owned())
        );
        assert_eq!(
            catch(|| std::panic::panic_any(3u8)),
            Err("no message".into())
        );
        // Nested: the outer catch is still catching after the inner ends.
        assert_eq!(
            catch(|| {
                assert_eq!(catch(|| panic!("inner")), Err::<(), _>("inner".into()));
                CATCHING.with(Cell::get)
            }),
            Ok(true)
        );
        assert!(!CATCHING.with(Cell::get));
    }
}
