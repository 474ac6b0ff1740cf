//! Front ends run under supervision: each file is parsed on a worker thread
//! with the pipeline's stack, and a file whose front end panics or runs past
//! its time bound becomes a problem of that file while the run goes on.
//!
//! A thread cannot be stopped from outside, so a worker that overruns is
//! abandoned: its eventual result is dropped, a fresh worker takes its place,
//! and the process exits without waiting for it. Files whose parse holds
//! over a weight the caller sets (the pipeline's `BIG_PARSE_BYTES`) are
//! parsed a few at a time (`BIG_FILES_AT_ONCE`: their trees take many
//! times their size in memory), largest first; a worker that finds no free
//! turn takes a small file instead, and waits only when none is left. The
//! clock of a big file starts when it gets its turn, and an abandoned
//! worker's turn is handed on.
//!
//! Items may be held ([`run_holding`]): they run only once the result of
//! an item that is not held says so, in the same run, beside the items
//! still left. Workers with nothing to do wait for that word until every
//! item not held has reported; without it, the held items never run.
//! Items may also be deferred: they run after that word, whether it
//! released the held items or not (the job may ask its own results which).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

/// The time a front end may take on one file: a base plus an allowance for
/// its size. An unoptimised build is an order of magnitude slower, so its
/// bound is ten times longer (the test suite runs one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    pub base: Duration,
    pub per_mib: Duration,
}

impl Bound {
    /// 5 s plus 1 s per MiB: the slowest front end reads well over 1 MiB a
    /// second, so only a pathological input comes near it.
    pub const DEFAULT: Bound = Bound {
        base: Duration::from_secs(5),
        per_mib: Duration::from_secs(1),
    };

    /// The same bound for every file, whatever its size (`--parse-timeout`).
    pub fn fixed(d: Duration) -> Bound {
        Bound {
            base: d,
            per_mib: Duration::ZERO,
        }
    }

    /// The bound for a file of `len` bytes.
    pub fn for_len(self, len: usize) -> Duration {
        let scale = if cfg!(debug_assertions) { 10 } else { 1 };
        let allowance = self.per_mib.mul_f64(len as f64 / (1024.0 * 1024.0));
        (self.base + allowance) * scale
    }
}

/// A bound as a person reads it: `200 ms`, `6.5 s`.
pub fn show(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// What became of one item.
#[derive(Debug)]
pub enum Fate<T> {
    Done(T, Duration),
    /// The work panicked; the panic's message.
    Panicked(String),
    /// The work ran past its bound and was abandoned.
    TimedOut(Duration),
}

/// One unit of work for [`run`].
pub trait Job: Send + Sync + 'static {
    type Output: Send + 'static;
    /// Do the work for item `i`.
    fn run(&self, i: usize) -> Self::Output;
    fn len(&self) -> usize;
    /// The bytes item `i` reads: sets its bound.
    fn size(&self, i: usize) -> usize;
    /// The bytes item `i` is estimated to hold while it runs: whether it
    /// runs one at a time, and in what order. Its size unless the job
    /// knows better.
    fn weight(&self, i: usize) -> usize {
        self.size(i)
    }
}

#[derive(Default)]
struct Slot {
    /// The item being worked on and since when.
    current: Option<(usize, Instant)>,
    abandoned: bool,
}

struct Shared<J> {
    job: J,
    /// The items that weigh at most `big_bytes`, the heaviest first (in
    /// order among equals), and the next one to take.
    small: Vec<usize>,
    next: std::sync::atomic::AtomicUsize,
    slots: Mutex<Vec<Slot>>,
    big: Mutex<Big>,
    big_cv: Condvar,
    /// How many big files may be parsed at once.
    big_at_once: usize,
    /// The weight over which an item is big.
    big_bytes: usize,
    held: Mutex<Holding>,
    held_cv: Condvar,
    stack: usize,
}

/// The held items, until the run says whether they run.
struct Holding {
    /// Whether the run has not said yet.
    pending: bool,
    /// Held items that weigh at most `big_bytes`, once released, not taken yet.
    released: Vec<usize>,
}

/// The big items and who is parsing them.
struct Big {
    /// The items that weigh over `big_bytes` not taken yet, smallest first:
    /// the largest is taken from the end.
    items: Vec<usize>,
    /// The workers whose big items are being parsed.
    turns: Vec<usize>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<J: Job> Shared<J> {
    /// The next item for worker `w`, and whether it is big. A big item is
    /// taken while a turn is free; otherwise a small one, so a worker never
    /// waits while small items are left; with none left, the worker waits
    /// for a turn, and then for word on the held items. `None` when nothing
    /// is left.
    fn take(&self, w: usize) -> Option<(usize, bool)> {
        use std::sync::atomic::Ordering;
        loop {
            if let Some(i) = self.take_big(w, false) {
                return Some((i, true));
            }
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            if let Some(&i) = self.small.get(k) {
                return Some((i, false));
            }
            if let Some(i) = lock(&self.held).released.pop() {
                return Some((i, false));
            }
            if let Some(i) = self.take_big(w, true) {
                return Some((i, true));
            }
            if !self.wait_for_word() {
                return None;
            }
        }
    }

    /// Wait until the run has said whether the held items run; whether any
    /// of them is left to take.
    fn wait_for_word(&self) -> bool {
        let mut held = lock(&self.held);
        while held.pending {
            held = self.held_cv.wait(held).unwrap_or_else(|e| e.into_inner());
        }
        !held.released.is_empty() || !lock(&self.big).items.is_empty()
    }

    /// Say whether the held `items` run: released, they are taken as the
    /// others are (a big one in its turn, largest first).
    fn decide(&self, deferred: &[usize], items: &[usize], release: bool) {
        let mut held = lock(&self.held);
        if !held.pending {
            return;
        }
        held.pending = false;
        let items: Vec<usize> = if release {
            deferred.iter().chain(items).copied().collect()
        } else {
            deferred.to_vec()
        };
        if !items.is_empty() {
            let (mut big, small): (Vec<usize>, Vec<usize>) = items
                .iter()
                .partition(|&&i| self.job.weight(i) > self.big_bytes);
            held.released = small;
            held.released.reverse();
            if !big.is_empty() {
                let mut b = lock(&self.big);
                b.items.append(&mut big);
                b.items.sort_by_key(|&i| self.job.weight(i));
                self.big_cv.notify_all();
            }
        }
        self.held_cv.notify_all();
    }

    fn take_big(&self, w: usize, wait: bool) -> Option<usize> {
        let mut big = lock(&self.big);
        loop {
            if big.items.is_empty() {
                return None;
            }
            if big.turns.len() < self.big_at_once {
                let i = big.items.pop()?;
                big.turns.push(w);
                return Some(i);
            }
            if !wait {
                return None;
            }
            big = self.big_cv.wait(big).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn give_up_big_turn(&self, w: usize) {
        let mut big = lock(&self.big);
        if let Some(at) = big.turns.iter().position(|&o| o == w) {
            big.turns.swap_remove(at);
            self.big_cv.notify_all();
        }
    }
}

type Report<T> = (usize, usize, Result<T, String>, Duration);

fn spawn<J: Job>(
    shared: &Arc<Shared<J>>,
    w: usize,
    tx: mpsc::Sender<Report<J::Output>>,
) -> std::io::Result<()> {
    let shared = Arc::clone(shared);
    thread::Builder::new()
        .name(format!("idemlint-parse-{w}"))
        .stack_size(shared.stack)
        .spawn(move || worker(&shared, w, &tx))
        .map(drop)
}

fn worker<J: Job>(shared: &Shared<J>, w: usize, tx: &mpsc::Sender<Report<J::Output>>) {
    while let Some((i, big)) = shared.take(w) {
        let t0 = Instant::now();
        {
            let mut slots = lock(&shared.slots);
            if slots[w].abandoned {
                return;
            }
            slots[w].current = Some((i, t0));
        }
        let result = catch_unwind(AssertUnwindSafe(|| shared.job.run(i))).map_err(panic_message);
        let took = t0.elapsed();
        let abandoned = {
            let mut slots = lock(&shared.slots);
            slots[w].current = None;
            slots[w].abandoned
        };
        if big {
            shared.give_up_big_turn(w);
        }
        if abandoned || tx.send((w, i, result, took)).is_err() {
            return;
        }
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// Run every item of `job` on `threads` workers with stacks of `stack`
/// bytes, each within `bound`, and say what became of each, in order.
/// Items that weigh over `big_bytes` run at most `big_at_once` at a time.
/// (The run holds no items: its tests' way in.)
#[cfg(test)]
pub fn run<J: Job>(
    job: J,
    threads: usize,
    stack: usize,
    big: (usize, usize),
    bound: Bound,
) -> std::io::Result<Vec<Fate<J::Output>>> {
    let len = job.len();
    run_holding(job, threads, stack, big, bound, (len, 0), &|_| false).map(|(fates, _)| fates)
}

/// [`run`], with the items from `held` on held: they run once `release`
/// says yes to the result of an item before `held`. The `deferred` items
/// from `held` on (before the held ones) run once that is settled, either
/// way: released, or every item before `held` reported without it. What
/// became of every item, and whether the held ones ran; when they did
/// not, only the items before `held + deferred` are in the list.
pub fn run_holding<J: Job>(
    job: J,
    threads: usize,
    stack: usize,
    (big_bytes, big_at_once): (usize, usize),
    bound: Bound,
    (held, deferred): (usize, usize),
    release: &dyn Fn(&J::Output) -> bool,
) -> std::io::Result<(Vec<Fate<J::Output>>, bool)> {
    let len = job.len();
    let held = held.min(len);
    let deferred = deferred.min(len - held);
    let threads = threads.clamp(1, len.max(1));
    let (mut big, mut small): (Vec<usize>, Vec<usize>) =
        (0..held).partition(|&i| job.weight(i) > big_bytes);
    big.sort_by_key(|&i| job.weight(i));
    // The heaviest first, so that no long parse starts last and runs alone
    // while the other workers wait: on the cargo registry, sqlparser's
    // `parser/mod.rs` (about 200 ms) came near the end of the path order
    // (2026-12-05, 15 interleaved runs: 0.350 -> 0.276 s, the same peak).
    // The results come back by index whatever the order.
    small.sort_by_key(|&i| std::cmp::Reverse(job.weight(i)));
    let deferred_items: Vec<usize> = (held..held + deferred).collect();
    let held_items: Vec<usize> = (held + deferred..len).collect();
    let shared = Arc::new(Shared {
        job,
        small,
        next: std::sync::atomic::AtomicUsize::new(0),
        slots: Mutex::new((0..threads).map(|_| Slot::default()).collect()),
        big: Mutex::new(Big {
            items: big,
            turns: Vec::new(),
        }),
        big_cv: Condvar::new(),
        big_at_once: big_at_once.max(1),
        big_bytes,
        held: Mutex::new(Holding {
            pending: !held_items.is_empty() || !deferred_items.is_empty(),
            released: Vec::new(),
        }),
        held_cv: Condvar::new(),
        stack,
    });
    let mut fates: Vec<Option<Fate<J::Output>>> = (0..len).map(|_| None).collect();
    // Items not held that have not reported, and all items left to report.
    let mut first_left = held;
    let mut left = held;
    let mut released = false;
    // Whether the deferred items were handed to the workers (and counted).
    let mut decided = false;
    if first_left == 0 {
        decided = true;
        left += deferred;
        shared.decide(&deferred_items, &held_items, false);
    }
    let (tx, rx) = mpsc::channel();
    for w in 0..threads {
        spawn(&shared, w, tx.clone())?;
    }
    // How often the overrun check runs while nothing arrives.
    let tick = Duration::from_millis(20);
    while left > 0 {
        match rx.recv_timeout(tick) {
            Ok((_, i, result, took)) => {
                if fates[i].is_none() {
                    if i < held && !released && !decided && result.as_ref().is_ok_and(release) {
                        released = true;
                        decided = true;
                        left += held_items.len() + deferred;
                        shared.decide(&deferred_items, &held_items, true);
                    }
                    fates[i] = Some(match result {
                        Ok(out) => Fate::Done(out, took),
                        Err(message) => Fate::Panicked(message),
                    });
                    left -= 1;
                    first_left -= usize::from(i < held);
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            // Every worker is gone with items left: cannot happen while
            // this loop holds a sender, but never wait forever on it.
            Err(RecvTimeoutError::Disconnected) => break,
        }
        let overrun: Vec<(usize, usize, Duration)> = {
            let mut slots = lock(&shared.slots);
            let mut found = Vec::new();
            for (w, slot) in slots.iter_mut().enumerate() {
                let Some((i, t0)) = slot.current else {
                    continue;
                };
                let limit = bound.for_len(shared.job.size(i));
                if !slot.abandoned && t0.elapsed() > limit {
                    slot.abandoned = true;
                    found.push((w, i, limit));
                }
            }
            found
        };
        for (w, i, limit) in overrun {
            if fates[i].is_none() {
                fates[i] = Some(Fate::TimedOut(limit));
                left -= 1;
                first_left -= usize::from(i < held);
            }
            shared.give_up_big_turn(w);
            let fresh = {
                let mut slots = lock(&shared.slots);
                slots.push(Slot::default());
                slots.len() - 1
            };
            spawn(&shared, fresh, tx.clone())?;
        }
        if first_left == 0 && !decided {
            decided = true;
            left += deferred;
            shared.decide(&deferred_items, &held_items, false);
        }
    }
    // Never leave a worker waiting for word (the loop ends on a lost channel).
    shared.decide(&[], &held_items, false);
    let ran = if released { len } else { held + deferred };
    let fates = fates
        .into_iter()
        .take(ran)
        .map(|f| f.unwrap_or(Fate::Panicked("no worker reported this file".to_string())))
        .collect();
    Ok((fates, released))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sleeps for the item's size in milliseconds; panics on `u32::MAX`.
    struct Sleepy(Vec<usize>);

    impl Job for Sleepy {
        type Output = usize;
        fn run(&self, i: usize) -> usize {
            let ms = self.0[i];
            assert!(ms != 999_999, "planted panic");
            thread::sleep(Duration::from_millis(ms as u64));
            i * 10
        }
        fn len(&self) -> usize {
            self.0.len()
        }
        fn size(&self, i: usize) -> usize {
            self.0[i]
        }
    }

    fn fixed(ms: u64) -> Bound {
        Bound::fixed(Duration::from_millis(ms))
    }

    #[test]
    fn every_item_is_done_in_order() {
        let fates = run(
            Sleepy(vec![3, 1, 2, 0, 5]),
            2,
            1 << 20,
            (usize::MAX, 1),
            fixed(60_000),
        )
        .unwrap();
        let outs: Vec<usize> = fates
            .iter()
            .map(|f| match f {
                Fate::Done(o, _) => *o,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(outs, vec![0, 10, 20, 30, 40]);
    }

    #[test]
    fn a_panic_is_the_fate_of_its_item_only() {
        let fates = run(
            Sleepy(vec![1, 999_999, 1]),
            2,
            1 << 20,
            (usize::MAX, 1),
            fixed(60_000),
        )
        .unwrap();
        assert!(matches!(fates[0], Fate::Done(0, _)));
        assert!(matches!(&fates[1], Fate::Panicked(m) if m.contains("planted panic")));
        assert!(matches!(fates[2], Fate::Done(20, _)));
    }

    #[test]
    fn an_overrun_is_abandoned_and_the_rest_goes_on() {
        // The bound in a debug build is ten times the fixed one: 200 ms
        // here, and the slow item sleeps 30 s.
        let bound = fixed(20);
        let fates = run(
            Sleepy(vec![1, 30_000, 1, 1, 1]),
            1,
            1 << 20,
            (usize::MAX, 1),
            bound,
        )
        .unwrap();
        assert!(matches!(fates[1], Fate::TimedOut(d) if d == bound.for_len(30_000)));
        for i in [0, 2, 3, 4] {
            assert!(matches!(fates[i], Fate::Done(o, _) if o == i * 10), "{i}");
        }
    }

    #[test]
    fn big_items_take_turns_and_an_abandoned_turn_is_handed_on() {
        // All three are "big": one at a time; the first overruns.
        let fates = run(Sleepy(vec![30_000, 5, 5]), 3, 1 << 20, (1, 1), fixed(20)).unwrap();
        assert!(matches!(fates[0], Fate::TimedOut(_)));
        assert!(matches!(fates[1], Fate::Done(10, _)));
        assert!(matches!(fates[2], Fate::Done(20, _)));
    }

    /// Sleeps 50 ms an item, counting how many of the items over 100
    /// bytes run at once.
    struct Counted {
        sizes: Vec<usize>,
        /// What an item weighs per byte of its size.
        per_byte: usize,
        now: std::sync::atomic::AtomicUsize,
        most: std::sync::atomic::AtomicUsize,
    }

    impl Job for Counted {
        type Output = ();
        fn run(&self, i: usize) {
            use std::sync::atomic::Ordering::SeqCst;
            let big = self.weight(i) > 100;
            if big {
                let n = self.now.fetch_add(1, SeqCst) + 1;
                self.most.fetch_max(n, SeqCst);
            }
            thread::sleep(Duration::from_millis(50));
            if big {
                self.now.fetch_sub(1, SeqCst);
            }
        }
        fn len(&self) -> usize {
            self.sizes.len()
        }
        fn size(&self, i: usize) -> usize {
            self.sizes[i]
        }
        fn weight(&self, i: usize) -> usize {
            self.sizes[i] * self.per_byte
        }
    }

    /// Sleeps 60 ms a big item (over 100 bytes) and 10 ms a small one,
    /// counting the small ones that start while the first big one runs.
    struct Overlap {
        sizes: Vec<usize>,
        big_now: std::sync::atomic::AtomicUsize,
        big_done: std::sync::atomic::AtomicUsize,
        beside_first: std::sync::atomic::AtomicUsize,
    }

    impl Job for Arc<Overlap> {
        type Output = ();
        fn run(&self, i: usize) {
            use std::sync::atomic::Ordering::SeqCst;
            let big = self.sizes[i] > 100;
            if big {
                self.big_now.fetch_add(1, SeqCst);
            } else if self.big_now.load(SeqCst) > 0 && self.big_done.load(SeqCst) == 0 {
                self.beside_first.fetch_add(1, SeqCst);
            }
            thread::sleep(Duration::from_millis(if big { 60 } else { 10 }));
            if big {
                self.big_done.fetch_add(1, SeqCst);
                self.big_now.fetch_sub(1, SeqCst);
            }
        }
        fn len(&self) -> usize {
            self.sizes.len()
        }
        fn size(&self, i: usize) -> usize {
            self.sizes[i]
        }
    }

    #[test]
    fn a_worker_without_a_big_turn_takes_small_items_meanwhile() {
        // Two big items, one at a time, on two workers: while the first
        // runs, the other worker parses the small items instead of waiting
        // for the turn (three of 10 ms fit in the first big one's 60).
        let job = Arc::new(Overlap {
            sizes: vec![500, 500, 1, 1, 1],
            big_now: Default::default(),
            big_done: Default::default(),
            beside_first: Default::default(),
        });
        let fates = run(Arc::clone(&job), 2, 1 << 20, (100, 1), fixed(60_000)).unwrap();
        assert!(fates.iter().all(|f| matches!(f, Fate::Done((), _))));
        let beside = job.beside_first.load(std::sync::atomic::Ordering::SeqCst);
        assert!(
            beside >= 2,
            "{beside} small items ran beside the first big one"
        );
    }

    /// Records the order in which its items start.
    struct Order {
        sizes: Vec<usize>,
        started: Mutex<Vec<usize>>,
    }

    impl Job for Arc<Order> {
        type Output = ();
        fn run(&self, i: usize) {
            lock(&self.started).push(i);
        }
        fn len(&self) -> usize {
            self.sizes.len()
        }
        fn size(&self, i: usize) -> usize {
            self.sizes[i]
        }
    }

    #[test]
    fn small_items_start_heaviest_first() {
        // One worker: the big item first, then the small ones from the
        // heaviest, in order among equals, whatever their places.
        let job = Arc::new(Order {
            sizes: vec![3, 50, 7, 500, 7, 1],
            started: Mutex::new(Vec::new()),
        });
        run(Arc::clone(&job), 1, 1 << 20, (100, 1), fixed(60_000)).unwrap();
        assert_eq!(*lock(&job.started), [3, 1, 2, 4, 0, 5]);
    }

    #[test]
    fn no_more_big_items_run_at_once_than_allowed() {
        // Big by size, or (per_byte 50) by weight alone.
        for (threads, at_once, per_byte, sizes) in [
            (4, 1, 1, vec![500, 500, 1, 500, 500, 1, 500, 500]),
            (4, 2, 1, vec![500, 500, 1, 500, 500, 1, 500, 500]),
            (2, 2, 1, vec![500, 500, 1, 500, 500, 1, 500, 500]),
            (4, 8, 1, vec![500, 500, 1, 500, 500, 1, 500, 500]),
            (4, 1, 50, vec![10, 10, 1, 10, 10, 1, 10, 10]),
        ] {
            let job = Counted {
                sizes,
                per_byte,
                now: Default::default(),
                most: Default::default(),
            };
            let job = std::sync::Arc::new(job);
            struct Shared(std::sync::Arc<Counted>);
            impl Job for Shared {
                type Output = ();
                fn run(&self, i: usize) {
                    self.0.run(i)
                }
                fn len(&self) -> usize {
                    self.0.len()
                }
                fn size(&self, i: usize) -> usize {
                    self.0.size(i)
                }
                fn weight(&self, i: usize) -> usize {
                    self.0.weight(i)
                }
            }
            let fates = run(
                Shared(std::sync::Arc::clone(&job)),
                threads,
                1 << 20,
                (100, at_once),
                fixed(60_000),
            )
            .unwrap();
            assert!(fates.iter().all(|f| matches!(f, Fate::Done((), _))));
            let seen = job.most.load(std::sync::atomic::Ordering::SeqCst);
            assert!(
                (1..=at_once.min(threads)).contains(&seen),
                "{threads} threads, {at_once} at once: {seen}"
            );
        }
    }

    fn outputs(fates: &[Fate<usize>]) -> Vec<usize> {
        fates
            .iter()
            .map(|f| match f {
                Fate::Done(o, _) => *o,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn held_items_run_in_the_same_run_once_a_result_releases_them() {
        // Items 3 and 4 are held; item 1's result (10) releases them while
        // the slow item 0 still runs. One thread or several, a held item
        // big or small.
        for threads in [1, 2, 4] {
            for big in [usize::MAX, 15] {
                let (fates, ran) = run_holding(
                    Sleepy(vec![40, 1, 2, 5, 20]),
                    threads,
                    1 << 20,
                    (big, 1),
                    fixed(60_000),
                    (3, 0),
                    &|&out| out == 10,
                )
                .unwrap();
                assert!(ran, "{threads} {big}");
                assert_eq!(outputs(&fates), vec![0, 10, 20, 30, 40], "{threads} {big}");
            }
        }
    }

    #[test]
    fn held_items_never_run_without_a_result_that_releases_them() {
        for threads in [1, 2, 4] {
            // A panic, an overrun and results that do not release: the held
            // items wait until every other item has reported, then the run
            // ends without them.
            let bound = fixed(20);
            let (fates, ran) = run_holding(
                Sleepy(vec![1, 999_999, 30_000, 2, 3]),
                threads,
                1 << 20,
                (usize::MAX, 1),
                bound,
                (3, 0),
                &|&out| out == 30,
            )
            .unwrap();
            assert!(!ran, "{threads}");
            assert_eq!(fates.len(), 3);
            assert!(matches!(fates[0], Fate::Done(0, _)));
            assert!(matches!(&fates[1], Fate::Panicked(_)));
            assert!(matches!(fates[2], Fate::TimedOut(_)));
        }
        // Only held items: nothing can release them.
        let (fates, ran) = run_holding(
            Sleepy(vec![1, 1]),
            2,
            1 << 20,
            (usize::MAX, 1),
            fixed(60_000),
            (0, 0),
            &|_| true,
        )
        .unwrap();
        assert!(!ran && fates.is_empty());
        // The last item to report releases them.
        let (fates, ran) = run_holding(
            Sleepy(vec![1, 30, 1]),
            2,
            1 << 20,
            (usize::MAX, 1),
            fixed(60_000),
            (2, 0),
            &|&out| out == 10,
        )
        .unwrap();
        assert!(ran);
        assert_eq!(outputs(&fates), vec![0, 10, 20]);
    }

    #[test]
    fn deferred_items_run_once_it_is_settled_either_way() {
        for threads in [1, 2, 4] {
            for big in [usize::MAX, 15] {
                // Items 2 and 3 are deferred, 4 held; item 1 releases.
                let (fates, ran) = run_holding(
                    Sleepy(vec![30, 1, 20, 2, 3]),
                    threads,
                    1 << 20,
                    (big, 1),
                    fixed(60_000),
                    (2, 2),
                    &|&out| out == 10,
                )
                .unwrap();
                assert!(ran, "{threads} {big}");
                assert_eq!(outputs(&fates), vec![0, 10, 20, 30, 40], "{threads} {big}");
                // Nothing releases: the deferred items run, the held one not.
                let (fates, ran) = run_holding(
                    Sleepy(vec![30, 1, 20, 2, 3]),
                    threads,
                    1 << 20,
                    (big, 1),
                    fixed(60_000),
                    (2, 2),
                    &|_| false,
                )
                .unwrap();
                assert!(!ran, "{threads} {big}");
                assert_eq!(outputs(&fates), vec![0, 10, 20, 30], "{threads} {big}");
            }
        }
        // No item before them: they run at once.
        let (fates, ran) = run_holding(
            Sleepy(vec![1, 2]),
            2,
            1 << 20,
            (usize::MAX, 1),
            fixed(60_000),
            (0, 1),
            &|_| true,
        )
        .unwrap();
        assert!(!ran);
        assert_eq!(outputs(&fates), vec![0]);
    }

    #[test]
    fn the_bound_grows_with_the_file() {
        let b = Bound::DEFAULT;
        assert!(b.for_len(16 << 20) > b.for_len(1 << 10));
        assert_eq!(
            Bound::fixed(Duration::from_secs(1)).for_len(0),
            Bound::fixed(Duration::from_secs(1)).for_len(1 << 30)
        );
    }
}
