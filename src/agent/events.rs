//! The channel a provider streams its [`StreamEvent`]s on while a call runs.
//!
//! Like an unbounded mpsc channel, with one difference that matters for a
//! stream of thousands of small events: a provider almost always sends from
//! inside its own call future, and the engine polls that future from the same
//! task that receives. A plain channel would wake that task for every send it
//! makes to itself, and the task would run once more per socket read only to
//! find what it had just put there. Here the receiver says when it is about
//! to poll the provider itself ([`EventReceiver::hold_wakes`]): sends made
//! meanwhile are queued without a wake, and the receiver takes them right
//! after that poll. A send from anywhere else (another task or thread, or
//! from the provider when the receiver is not polling it) wakes the receiver
//! as usual.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use super::StreamEvent;

/// A new channel: the sending half goes to the provider.
pub fn channel() -> (EventSender, EventReceiver) {
    let shared = Arc::new(Mutex::new(Shared {
        queue: VecDeque::new(),
        waker: None,
        held: false,
        senders: 1,
        receiver_gone: false,
    }));
    (
        EventSender {
            shared: shared.clone(),
        },
        EventReceiver { shared },
    )
}

#[derive(Debug)]
struct Shared {
    queue: VecDeque<StreamEvent>,
    /// The receiver's task, from its last poll that found nothing.
    waker: Option<Waker>,
    /// The receiver is polling the provider itself: a send needs no wake.
    held: bool,
    senders: usize,
    /// Nobody will read what is sent any more.
    receiver_gone: bool,
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    // Nothing panics while holding the lock; a poisoned lock still holds a
    // consistent queue.
    shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The provider's half: clone it for every part of a provider that sends.
#[derive(Debug)]
pub struct EventSender {
    shared: Arc<Mutex<Shared>>,
}

impl EventSender {
    /// Queues `event` for the receiver. Never blocks and never fails: events
    /// sent after the receiver is gone are dropped with it.
    pub fn send(&self, event: StreamEvent) {
        let waker = {
            let mut shared = lock(&self.shared);
            if shared.receiver_gone {
                return;
            }
            shared.queue.push_back(event);
            if shared.held {
                None
            } else {
                shared.waker.take()
            }
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl Clone for EventSender {
    fn clone(&self) -> Self {
        lock(&self.shared).senders += 1;
        EventSender {
            shared: self.shared.clone(),
        }
    }
}

impl Drop for EventSender {
    fn drop(&mut self) {
        let waker = {
            let mut shared = lock(&self.shared);
            shared.senders -= 1;
            if shared.senders == 0 {
                shared.waker.take()
            } else {
                None
            }
        };
        // The last sender gone ends the stream: a waiting receiver hears it.
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The engine's half.
#[derive(Debug)]
pub struct EventReceiver {
    shared: Arc<Mutex<Shared>>,
}

impl EventReceiver {
    /// Says that this task is about to poll the sending provider itself:
    /// until the next [`poll_recv_many`](Self::poll_recv_many), sends do not
    /// wake it.
    pub fn hold_wakes(&self) {
        lock(&self.shared).held = true;
    }

    /// Moves every queued event to the end of `into` and returns how many:
    /// ready with 0 once every sender is gone and the queue is empty. Wakes
    /// are no longer held, and this task's waker is kept for later sends
    /// either way, so a send from elsewhere after a ready poll wakes it too.
    pub fn poll_recv_many(&mut self, cx: &Context<'_>, into: &mut Vec<StreamEvent>) -> Poll<usize> {
        let mut shared = lock(&self.shared);
        shared.held = false;
        if !shared
            .waker
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()))
        {
            shared.waker = Some(cx.waker().clone());
        }
        let received = shared.queue.len();
        into.extend(shared.queue.drain(..));
        if received > 0 || shared.senders == 0 {
            Poll::Ready(received)
        } else {
            Poll::Pending
        }
    }

    /// The next event, or `None` once every sender is gone and all was read.
    pub async fn recv(&mut self) -> Option<StreamEvent> {
        poll_fn(|cx| {
            let mut shared = lock(&self.shared);
            match shared.queue.pop_front() {
                Some(event) => Poll::Ready(Some(event)),
                None if shared.senders == 0 => Poll::Ready(None),
                None => {
                    shared.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await
    }

    /// The next event if one is queued.
    pub fn try_recv(&mut self) -> Option<StreamEvent> {
        lock(&self.shared).queue.pop_front()
    }
}

impl Drop for EventReceiver {
    fn drop(&mut self) {
        let mut shared = lock(&self.shared);
        shared.receiver_gone = true;
        shared.queue.clear();
        shared.waker = None;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    use super::*;

    /// A waker that counts its wakes.
    #[derive(Default)]
    struct Counter(AtomicUsize);

    impl Wake for Counter {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    impl Counter {
        fn wakes(&self) -> usize {
            self.0.load(Ordering::SeqCst)
        }
    }

    /// A counting waker, and a receiver that has polled once with it and
    /// found nothing (so it waits for a send).
    fn waiting() -> (Arc<Counter>, Waker, EventSender, EventReceiver) {
        let counter = Arc::new(Counter::default());
        let waker = Waker::from(counter.clone());
        let (sender, mut receiver) = channel();
        let cx = Context::from_waker(&waker);
        assert_eq!(receiver.poll_recv_many(&cx, &mut Vec::new()), Poll::Pending);
        (counter, waker, sender, receiver)
    }

    fn text(text: &str) -> StreamEvent {
        StreamEvent::Text(text.into())
    }

    #[test]
    fn sends_while_the_receiver_polls_the_provider_wake_nobody() {
        let (counter, waker, sender, mut receiver) = waiting();
        let cx = Context::from_waker(&waker);
        let mut into = Vec::new();
        receiver.hold_wakes();
        sender.send(text("a"));
        sender.send(text("b"));
        assert_eq!(counter.wakes(), 0);
        assert_eq!(receiver.poll_recv_many(&cx, &mut into), Poll::Ready(2));
        assert_eq!(into, [text("a"), text("b")]);
        // Not held any more: the next send wakes the receiver, once.
        sender.send(text("c"));
        sender.send(text("d"));
        assert_eq!(counter.wakes(), 1);
        assert_eq!(receiver.poll_recv_many(&cx, &mut into), Poll::Ready(2));
        assert_eq!(into.len(), 4);
    }

    #[test]
    fn the_last_sender_gone_ends_the_stream_and_wakes_the_receiver() {
        let (counter, waker, sender, mut receiver) = waiting();
        let cx = Context::from_waker(&waker);
        let other = sender.clone();
        let mut into = Vec::new();
        drop(sender);
        assert_eq!(counter.wakes(), 0);
        other.send(text("last"));
        assert_eq!(counter.wakes(), 1);
        assert_eq!(receiver.poll_recv_many(&cx, &mut into), Poll::Ready(1));
        drop(other);
        assert_eq!(counter.wakes(), 2);
        assert_eq!(receiver.poll_recv_many(&cx, &mut into), Poll::Ready(0));
        assert_eq!(receiver.try_recv(), None);
    }

    #[test]
    fn what_is_sent_after_the_receiver_is_gone_is_dropped() {
        let (sender, receiver) = channel();
        sender.send(text("read by nobody"));
        drop(receiver);
        sender.send(text("nor this"));
        assert!(lock(&sender.shared).queue.is_empty());
    }

    #[tokio::test]
    async fn a_send_from_another_thread_reaches_a_waiting_receiver() {
        let (sender, mut receiver) = channel();
        let thread = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            sender.send(text("from afar"));
        });
        assert_eq!(receiver.recv().await, Some(text("from afar")));
        assert_eq!(receiver.recv().await, None);
        thread.join().unwrap();
    }
}
