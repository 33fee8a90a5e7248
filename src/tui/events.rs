//! The person's keys, mouse and resizes as a stream the event loop can poll
//! at every turn without cost.
//!
//! crossterm's `EventStream` reads the terminal on a thread of its own,
//! which holds crossterm's event reader locked while it waits. Each poll of
//! the stream first tries that lock (for no time at all), and parking_lot
//! spins before it gives up: up to seven `sched_yield` calls and a futex
//! wait, each time. The event loop polls every source at every turn (a
//! stream read, a frame, a tick), so a streaming debate paid that spin
//! hundreds of times a second: 34,000 `sched_yield`s in a 26-second run.
//! [`TerminalEvents`] polls the stream only after its thread said an event
//! came (by waking it), or after it last gave one (more may be queued).
//!
//! Not responsible for what an event means (`app`), nor for the terminal's
//! modes (`terminal`).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures::Stream;
use futures::task::AtomicWaker;

/// The terminal's events: crossterm's stream, polled only when it woke.
pub type TerminalEvents = PolledWhenWoken<crossterm::event::EventStream>;

impl Default for TerminalEvents {
    fn default() -> Self {
        PolledWhenWoken::wrap(crossterm::event::EventStream::new())
    }
}

/// A stream polled only once it has woken the task, or has just given an
/// item: a poll before that would only find it pending again, and may cost
/// (see the module's documentation).
pub struct PolledWhenWoken<S> {
    inner: S,
    signal: Arc<Signal>,
}

/// Whether the inner stream woke since it was last polled, and the task to
/// tell when it does.
struct Signal {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl<S> PolledWhenWoken<S> {
    /// `inner`, first polled at the first poll.
    pub fn wrap(inner: S) -> Self {
        PolledWhenWoken {
            inner,
            signal: Arc::new(Signal {
                woken: AtomicBool::new(true),
                task: AtomicWaker::new(),
            }),
        }
    }
}

impl<S: Stream + Unpin> Stream for PolledWhenWoken<S> {
    type Item = S::Item;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let this = self.get_mut();
        // Registered before the flag is read: a wake in between still
        // reaches this task.
        this.signal.task.register(cx.waker());
        if !this.signal.woken.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        let waker = Waker::from(Arc::clone(&this.signal));
        let polled = Pin::new(&mut this.inner).poll_next(&mut Context::from_waker(&waker));
        if polled.is_ready() {
            // More may be waiting behind this one, with no wake to come.
            this.signal.woken.store(true, Ordering::Release);
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::Mutex;
    use std::sync::atomic::AtomicUsize;

    use futures::StreamExt;

    use super::*;

    /// A stream that counts its polls and gives what is pushed into it,
    /// waking the last task that polled it, as crossterm's thread does.
    #[derive(Clone, Default)]
    struct Pushed {
        shared: Arc<Shared>,
    }

    /// The items not yet given and the last task that polled, and how
    /// many polls there were.
    #[derive(Default)]
    struct Shared {
        state: Mutex<(VecDeque<u32>, Option<Waker>)>,
        polls: AtomicUsize,
    }

    impl Pushed {
        fn push(&self, item: u32) {
            let waker = {
                let mut state = self.shared.state.lock().unwrap();
                state.0.push_back(item);
                state.1.take()
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        }

        fn polls(&self) -> usize {
            self.shared.polls.load(Ordering::SeqCst)
        }
    }

    impl Stream for Pushed {
        type Item = u32;

        fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<u32>> {
            self.shared.polls.fetch_add(1, Ordering::SeqCst);
            let mut state = self.shared.state.lock().unwrap();
            match state.0.pop_front() {
                Some(item) => Poll::Ready(Some(item)),
                None => {
                    state.1 = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        }
    }

    /// The loop's task, as a waker that counts its wakes.
    struct Task(AtomicUsize);

    impl Wake for Task {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn the_stream_is_polled_only_after_it_woke_or_gave_an_item() {
        let pushed = Pushed::default();
        let mut events = PolledWhenWoken::wrap(pushed.clone());
        let task = Arc::new(Task(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&task));
        let mut cx = Context::from_waker(&waker);
        // The first poll looks; the loop's many turns after it do not.
        for _ in 0..100 {
            assert_eq!(events.poll_next_unpin(&mut cx), Poll::Pending);
        }
        assert_eq!(pushed.polls(), 1, "one look, then none until a wake");
        // Two events come at once: the wake reaches the loop's task, and
        // both are given, the second without a wake of its own.
        pushed.push(7);
        pushed.push(8);
        assert_eq!(task.0.load(Ordering::SeqCst), 1, "the loop is woken");
        assert_eq!(events.poll_next_unpin(&mut cx), Poll::Ready(Some(7)));
        assert_eq!(events.poll_next_unpin(&mut cx), Poll::Ready(Some(8)));
        assert_eq!(events.poll_next_unpin(&mut cx), Poll::Pending);
        let polls = pushed.polls();
        for _ in 0..100 {
            assert_eq!(events.poll_next_unpin(&mut cx), Poll::Pending);
        }
        assert_eq!(pushed.polls(), polls, "quiet again until the next wake");
        pushed.push(9);
        assert_eq!(events.poll_next_unpin(&mut cx), Poll::Ready(Some(9)));
    }

    #[test]
    fn a_wake_between_the_look_and_the_return_is_not_lost() {
        // The loop's task changes between polls (a new select each turn):
        // the wake goes to the task that polled last.
        let pushed = Pushed::default();
        let mut events = PolledWhenWoken::wrap(pushed.clone());
        let first = Arc::new(Task(AtomicUsize::new(0)));
        let second = Arc::new(Task(AtomicUsize::new(0)));
        let first_waker = Waker::from(Arc::clone(&first));
        let second_waker = Waker::from(Arc::clone(&second));
        assert_eq!(
            events.poll_next_unpin(&mut Context::from_waker(&first_waker)),
            Poll::Pending
        );
        assert_eq!(
            events.poll_next_unpin(&mut Context::from_waker(&second_waker)),
            Poll::Pending
        );
        pushed.push(1);
        assert_eq!(first.0.load(Ordering::SeqCst), 0);
        assert_eq!(second.0.load(Ordering::SeqCst), 1);
        assert_eq!(
            events.poll_next_unpin(&mut Context::from_waker(&second_waker)),
            Poll::Ready(Some(1))
        );
    }
}
