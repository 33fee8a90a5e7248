//! The moment the runtime has run everything that was ready: when a frame
//! shows every read of its clock tick, and costs no wake of its own.
//!
//! Answer streams are read on a shared frame clock (`agent::http::paced`),
//! and a read goes through several tasks before it reaches the interface:
//! the connection, its call (which gathers a turn's events), the engine.
//! Drawing as soon as the first update lands would leave the other streams
//! of that tick for the next frame; waiting a fixed time for them cost a
//! timer wake every frame. [`until_idle`] is ready when the thread is about
//! to park, which tokio's current-thread runtime does only once no task is
//! ready and none deferred: every read of the tick has landed by then.
//!
//! The runtime calls [`on_park`] (its `on_thread_park` hook, set in
//! `main`). Without that hook [`until_idle`] never becomes ready, and the
//! interface falls back on its frame timer. The state is per thread, as a
//! current-thread runtime and its tasks are.
//!
//! Not responsible for when a frame may be drawn (`run` decides), only for
//! telling it that nothing else is about to happen.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

enum Waiting {
    /// Nobody waits for the runtime to go idle.
    No,
    /// A task waits: wake it at the next park.
    Wanted(Waker),
    /// The runtime went idle since the waiting task last looked.
    Came,
}

thread_local! {
    static WAITING: RefCell<Waiting> = const { RefCell::new(Waiting::No) };
}

/// For the runtime's `on_thread_park` hook: wakes the task waiting in
/// [`until_idle`] on this thread, if any. A task woken here is run before
/// the thread blocks (tokio looks for work the hook made), so the wait
/// ends without a wake of the process.
pub fn on_park() {
    let waker = WAITING.with(|waiting| {
        let mut waiting = waiting.borrow_mut();
        match std::mem::replace(&mut *waiting, Waiting::No) {
            Waiting::Wanted(waker) => {
                *waiting = Waiting::Came;
                Some(waker)
            }
            other => {
                *waiting = other;
                None
            }
        }
    });
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// Ready at the first park of this thread's runtime after it is first
/// polled. One waiter per thread; dropping it forgets the wait, so a park
/// seen by an earlier, dropped wait does not end a later one.
pub fn until_idle() -> UntilIdle {
    UntilIdle { _private: () }
}

/// See [`until_idle`].
pub struct UntilIdle {
    _private: (),
}

impl Future for UntilIdle {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        WAITING.with(|waiting| {
            let mut waiting = waiting.borrow_mut();
            if matches!(*waiting, Waiting::Came) {
                *waiting = Waiting::No;
                return Poll::Ready(());
            }
            // The interface polls this once per turn of its loop: keep the
            // waker it holds when it is the same task's.
            match &*waiting {
                Waiting::Wanted(waker) if waker.will_wake(cx.waker()) => {}
                _ => *waiting = Waiting::Wanted(cx.waker().clone()),
            }
            Poll::Pending
        })
    }
}

impl Drop for UntilIdle {
    fn drop(&mut self) {
        // (During a thread's teardown the state may be gone already.)
        let _ = WAITING.try_with(|waiting| *waiting.borrow_mut() = Waiting::No);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn runtime_with_hook() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .on_thread_park(on_park)
            .build()
            .unwrap()
    }

    /// A read that passes through three tasks, each yielding to the
    /// runtime on the way (as a call gathering a turn's events does), has
    /// reached the end of the line when the wait ends: idle means nothing
    /// was left to run.
    #[test]
    fn the_wait_ends_once_every_ready_task_has_run() {
        runtime_with_hook().block_on(async {
            let arrived = Arc::new(AtomicUsize::new(0));
            for stream in 0..3 {
                let arrived = arrived.clone();
                let (to_call, mut call) = tokio::sync::mpsc::unbounded_channel::<usize>();
                let (to_engine, mut engine) = tokio::sync::mpsc::unbounded_channel::<usize>();
                tokio::spawn(async move {
                    for _ in 0..stream + 1 {
                        tokio::task::yield_now().await;
                    }
                    to_call.send(stream).unwrap();
                });
                tokio::spawn(async move {
                    let read = call.recv().await.unwrap();
                    tokio::task::yield_now().await;
                    to_engine.send(read).unwrap();
                });
                tokio::spawn(async move {
                    engine.recv().await.unwrap();
                    arrived.fetch_add(1, Ordering::SeqCst);
                });
            }
            until_idle().await;
            assert_eq!(arrived.load(Ordering::SeqCst), 3);
        });
    }

    /// A wait given up before the runtime went idle leaves nothing behind:
    /// a later wait is not ended by that park, only by its own.
    #[test]
    fn a_dropped_wait_does_not_end_the_next_one() {
        runtime_with_hook().block_on(async {
            {
                let mut first = std::pin::pin!(until_idle());
                let polled = std::future::poll_fn(|cx| Poll::Ready(first.as_mut().poll(cx))).await;
                assert!(polled.is_pending());
            }
            // The runtime parks for this sleep; nobody waits.
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            let ran_after = Arc::new(AtomicUsize::new(0));
            let counted = ran_after.clone();
            tokio::spawn(async move {
                tokio::task::yield_now().await;
                counted.fetch_add(1, Ordering::SeqCst);
            });
            until_idle().await;
            assert_eq!(ran_after.load(Ordering::SeqCst), 1, "ended by its own park");
        });
    }

    /// Without the hook the wait never ends: the interface draws on its
    /// frame timer instead.
    #[test]
    fn without_the_hook_the_wait_never_ends() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let waited = tokio::time::timeout(std::time::Duration::from_millis(5), until_idle());
            assert!(waited.await.is_err());
        });
    }
}
