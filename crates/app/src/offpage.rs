//! The page's side of its worker ([`super::worker`]): a large user's tensor (at least
//! [`OFF_PAGE`](qscope_explore::analysis::OFF_PAGE) elements) is copied to the worker once, and
//! the questions the panels need answered about it ([`Ask`]) are sent one at a time; answers are
//! kept by tensor and question, so going back to a setting costs nothing. Questions no panel
//! needs any more are dropped before they are sent. Progress and Cancel for the status line.
//! Where no worker can start (an old browser, the script missing), the page answers the
//! questions itself.

use std::collections::VecDeque;
use std::sync::Arc;

use js_sys::{Array, Float32Array, Uint8Array};
use leptos::prelude::*;
use leptos::task::spawn_local;
use qscope_explore::analysis::{Answer, Ask, answer};
use qscope_explore::tensor::Loaded;
use qscope_explore::wire::{decode, encode};
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

use super::dom::next_frame;
use super::worker::{field, message};
use leptos::prelude::window;

/// Answers kept (the oldest are forgotten first).
const KEPT: usize = 24;
/// Values per message when the tensor is copied to the worker (4 MB, a few milliseconds to
/// copy: one part per frame).
const PART: usize = 1 << 20;

/// A question about one tensor.
pub type Key = (u64, Ask);

/// What the worker is doing, for the status line.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Questions answered of those asked since the worker was last idle.
    pub answered: usize,
    pub asked: usize,
    /// Within the question being answered: steps done of its steps.
    pub step: (usize, usize),
}

impl Progress {
    /// The fraction done, 0 to 1.
    pub fn fraction(&self) -> f64 {
        let (d, t) = self.step;
        let within = if t == 0 { 0.0 } else { d as f64 / t as f64 };
        ((self.answered as f64 + within) / self.asked.max(1) as f64).min(1.0)
    }
}

#[derive(Default)]
struct Inner {
    worker: Option<Worker>,
    ready: bool,
    /// The tensor the worker holds (its serial).
    holds: Option<u64>,
    /// Its parts are still being sent (one per frame): no question goes before the last.
    sending: bool,
    /// Messages waiting for the worker to be ready.
    waiting: Vec<JsValue>,
    queue: VecDeque<Key>,
    in_flight: Option<(u64, Key)>,
    next_id: u64,
    /// A worker failed to start or stopped: the page answers from now on.
    broken: bool,
}

/// The worker and its answers (cheap to copy into components).
#[derive(Clone, Copy)]
pub struct Offload {
    answers: RwSignal<VecDeque<(Key, Answer)>, LocalStorage>,
    pub progress: RwSignal<Option<Progress>>,
    /// Set by Cancel: nothing more is asked until [`Offload::resume`].
    pub stopped: RwSignal<bool>,
    /// The last error the worker reported.
    pub error: RwSignal<Option<String>>,
    /// Notified when what was asked must be asked again (the worker stopped).
    pub again: Trigger,
    inner: StoredValue<Inner, LocalStorage>,
}

impl Offload {
    pub fn new() -> Offload {
        let inner = StoredValue::new_local(Inner::default());
        on_cleanup(move || {
            if let Some(w) = inner.try_update_value(|i| i.worker.take()).flatten() {
                w.terminate();
            }
        });
        Offload {
            answers: RwSignal::new_local(VecDeque::new()),
            progress: RwSignal::new(None),
            stopped: RwSignal::new(false),
            error: RwSignal::new(None),
            again: Trigger::new(),
            inner,
        }
    }

    /// Runs `f` on the answer to `ask` about tensor `serial`, if there is one (tracked).
    pub fn with_answer<T>(&self, serial: u64, ask: &Ask, f: impl FnOnce(&Answer) -> T) -> Option<T> {
        self.answers.with(|a| a.iter().find(|(k, _)| k.0 == serial && k.1 == *ask).map(|(_, v)| f(v)))
    }

    fn known(&self, key: &Key) -> bool {
        self.answers.with_untracked(|a| a.iter().any(|(k, _)| k == key))
    }

    /// Asks `asks` about `tensor` (those not answered yet), dropping queued questions that are not
    /// among them.
    pub fn want(&self, tensor: &Loaded, asks: Vec<Ask>) {
        if self.stopped.get_untracked() {
            return;
        }
        let serial = tensor.serial;
        let keys: Vec<Key> = asks.into_iter().map(|a| (serial, a)).filter(|k| !self.known(k)).collect();
        let started = self.inner.try_update_value(|inner| {
            inner.queue.retain(|k| keys.contains(k));
            for k in &keys {
                if !inner.queue.contains(k) && inner.in_flight.as_ref().is_none_or(|f| f.1 != *k) {
                    inner.queue.push_back(k.clone());
                }
            }
            if inner.worker.is_none() && !inner.broken {
                inner.worker = self.spawn();
            }
            inner.worker.is_some()
        });
        if started != Some(true) {
            // No worker: answer here (the page waits, but shows the right numbers).
            for (serial, ask) in keys {
                if let Ok(a) = answer(&ask, &tensor.shape, &tensor.values, &mut |_, _| {}) {
                    self.keep((serial, ask), a);
                }
            }
            return;
        }
        self.send_tensor(tensor);
        let waiting = self.inner.with_value(|i| i.queue.len() + usize::from(i.in_flight.is_some()));
        self.progress.update(|p| match p {
            Some(p) => p.asked = p.answered + waiting,
            None if waiting > 0 => *p = Some(Progress { answered: 0, asked: waiting, step: (0, 0) }),
            None => {}
        });
        self.pump();
    }

    /// Stops the worker (its work is lost) and asks nothing more until [`Offload::resume`].
    pub fn cancel(&self) {
        self.stopped.set(true);
        self.progress.set(None);
        self.inner.update_value(|i| {
            if let Some(w) = i.worker.take() {
                w.terminate();
            }
            *i = Inner { next_id: i.next_id, broken: i.broken, ..Inner::default() };
        });
    }

    /// Asks again after [`Offload::cancel`] (the model's effect sends what the panels need).
    pub fn resume(&self) {
        self.stopped.set(false);
    }

    fn keep(&self, key: Key, answer: Answer) {
        self.answers.update(|a| {
            a.retain(|(k, _)| k.0 == key.0);
            a.push_back((key, answer));
            while a.len() > KEPT {
                a.pop_front();
            }
        });
    }

    fn post(&self, m: JsValue, transfer: Option<&Array>) {
        self.inner.update_value(|i| match (&i.worker, i.ready) {
            (Some(w), true) => {
                let _ = match transfer {
                    Some(t) => w.post_message_with_transfer(&m, t),
                    None => w.post_message(&m),
                };
            }
            _ => i.waiting.push(m),
        });
    }

    fn send_tensor(&self, tensor: &Loaded) {
        let serial = tensor.serial;
        if self.inner.with_value(|i| i.holds == Some(serial)) {
            return;
        }
        self.inner.update_value(|i| {
            i.holds = Some(serial);
            i.sending = true;
        });
        let dims: Array = tensor.shape.iter().map(|&d| JsValue::from(d as f64)).collect();
        let id = JsValue::from(serial as f64);
        let total = JsValue::from(tensor.values.len() as f64);
        self.post(message("tensor", &[("serial", id.clone()), ("dims", dims.into()), ("total", total)]).into(), None);
        let (this, values) = (*self, Arc::clone(&tensor.values));
        spawn_local(async move {
            for part in values.chunks(PART) {
                if this.inner.try_with_value(|i| i.holds != Some(serial)).unwrap_or(true) {
                    return; // cancelled, or another tensor
                }
                let part = Float32Array::from(part);
                let transfer = Array::of1(&part.buffer());
                this.post(message("part", &[("serial", id.clone()), ("values", part.into())]).into(), Some(&transfer));
                next_frame().await;
            }
            let sent = this.inner.try_update_value(|i| {
                let sent = i.holds == Some(serial);
                i.sending &= !sent;
                sent
            });
            if sent == Some(true) {
                this.pump();
            }
        });
    }

    /// Sends the next question when the worker is idle.
    fn pump(&self) {
        let next = self.inner.try_update_value(|i| {
            if !i.ready || i.sending || i.in_flight.is_some() {
                return None;
            }
            let key = i.queue.pop_front()?;
            i.next_id += 1;
            i.in_flight = Some((i.next_id, key.clone()));
            Some((i.next_id, key))
        });
        let Some(Some((id, (serial, ask)))) = next else { return };
        let bytes = Uint8Array::from(&encode(&ask)[..]);
        let fields = [("id", (id as f64).into()), ("serial", (serial as f64).into()), ("bytes", bytes.into())];
        self.post(message("ask", &fields).into(), None);
    }

    fn spawn(&self) -> Option<Worker> {
        let this = *self;
        spawn_worker(
            move |m| this.receive(&m),
            move || {
                this.error.set(Some("the page's worker stopped; the numbers are computed on the page".into()));
                this.inner.update_value(|i| {
                    if let Some(w) = i.worker.take() {
                        w.terminate();
                    }
                    *i = Inner { next_id: i.next_id, broken: true, ..Inner::default() };
                });
                this.progress.set(None);
                // Ask again: the page answers now.
                this.again.notify();
            },
        )
    }

    fn receive(&self, m: &JsValue) {
        let id = field(m, "id").as_f64().unwrap_or(-1.0) as u64;
        let current = self.inner.with_value(|i| i.in_flight.clone().filter(|f| f.0 == id));
        match field(m, "t").as_string().as_deref() {
            Some("ready") => {
                let waiting = self.inner.try_update_value(|i| {
                    i.ready = true;
                    std::mem::take(&mut i.waiting)
                });
                let worker = self.inner.with_value(|i| i.worker.clone());
                if let (Some(w), Some(waiting)) = (worker, waiting) {
                    for m in waiting {
                        let values = field(&m, "values");
                        let _ = if values.is_undefined() {
                            w.post_message(&m)
                        } else {
                            w.post_message_with_transfer(&m, &Array::of1(&Float32Array::from(values).buffer()))
                        };
                    }
                }
                self.pump();
            }
            Some("progress") => {
                let step = (
                    field(m, "done").as_f64().unwrap_or(0.0) as usize,
                    field(m, "total").as_f64().unwrap_or(0.0) as usize,
                );
                self.progress.update(|p| {
                    if let Some(p) = p {
                        p.step = step;
                    }
                });
            }
            Some(kind @ ("answer" | "error")) => {
                let Some((_, key)) = current else { return };
                self.inner.update_value(|i| i.in_flight = None);
                if kind == "answer" {
                    match decode::<Answer>(&Uint8Array::from(field(m, "bytes")).to_vec()) {
                        Ok(a) => self.keep(key, a),
                        Err(e) => self.error.set(Some(format!("the worker's answer is malformed: {e}"))),
                    }
                } else {
                    self.error.set(field(m, "message").as_string());
                }
                let left = self.inner.with_value(|i| i.queue.len());
                self.progress.update(|p| {
                    if let Some(q) = p.as_mut() {
                        q.answered += 1;
                        q.step = (0, 0);
                    }
                    if left == 0 {
                        *p = None;
                    }
                });
                self.pump();
            }
            _ => {}
        }
    }
}

/// A worker running the page's own module (`assets/worker.js`), its messages to `receive` and a
/// failure to `fail`; `None` where no worker can start.
pub fn spawn_worker(receive: impl FnMut(JsValue) + 'static, mut fail: impl FnMut() + 'static) -> Option<Worker> {
    let (module, wasm) = own_module()?;
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let query = format!("worker.js?m={}&w={}", encode_uri(&module), encode_uri(&wasm));
    let worker = Worker::new_with_options(&query, &options).ok()?;
    let mut receive = receive;
    let on = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| receive(e.data()));
    worker.set_onmessage(Some(on.as_ref().unchecked_ref()));
    on.forget();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| fail());
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Some(worker)
}

/// The page's own module and wasm, as Trunk's loader names them in the page's head.
fn own_module() -> Option<(String, String)> {
    let doc = window().document()?;
    let href = |selector: &str| doc.query_selector(selector).ok().flatten().and_then(|e| e.get_attribute("href"));
    Some((href("link[rel=modulepreload]")?, href("link[rel=preload][type='application/wasm']")?))
}

fn encode_uri(s: &str) -> String {
    js_sys::encode_uri_component(s).into()
}
