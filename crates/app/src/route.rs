//! The page's route: which view is mounted (explorer or trainer) and the page keys around it
//! (lesson, step, embed, present), as one signal owned by the app. Views switch without a
//! reload: the app mounts the view under the route and mounts it afresh when the view or the
//! lesson's step changes; the old view's listeners and loops go with it (each view removes
//! what it installed when its reactive owner is cleaned up).
//!
//! A view still reads its own keys from the hash when it mounts and writes them back with
//! `replaceState` ([`hash::write_view`]); the route never carries them, so a view's edits do not
//! remount it. A hash typed into the address bar (`hashchange`) is read here for the view and
//! page keys, and by the mounted view for its own keys.

use leptos::ev;
use leptos::prelude::*;

use super::hash;
use qscope_explore::page::{Page, View};

/// What is mounted: the view, the page keys, and a counter bumped at every remount.
#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    pub view: View,
    pub page: Page,
    pub mount: u64,
}

/// Turns a hash into the one to show: a lesson's step without view keys, or one just `moved`
/// to (the second argument), gets the step's own state; any other hash stays as it is.
pub type Settle = fn(&str, bool) -> String;

/// The route signal and how to move it (`Copy`, provided as context by the app).
#[derive(Clone, Copy)]
pub struct Router {
    route: RwSignal<Route>,
    settle: Settle,
}

/// The view and page keys of a hash.
fn parts(hash: &str) -> (View, Page) {
    let (page, view_hash, _) = Page::split(hash);
    (View::of(&view_hash), page)
}

/// Settles the current hash (rewriting it when settling changes it) and returns it.
fn settled(settle: Settle, moved: bool) -> String {
    let now = hash::current();
    let hash = settle(&now, moved);
    if hash != now {
        hash::replace(&hash);
    }
    hash
}

impl Router {
    /// Reads the current hash and follows `hashchange` as long as the calling owner lives.
    pub fn new(settle: Settle) -> Router {
        let (view, page) = parts(&settled(settle, false));
        let router = Router { route: RwSignal::new(Route { view, page, mount: 0 }), settle };
        let handle = window_event_listener(ev::hashchange, move |_| router.arrive());
        on_cleanup(move || handle.remove());
        router
    }

    /// A hash typed or followed: remounts when the view or the lesson's place changed, else
    /// takes the page keys (the mounted view reads its own).
    fn arrive(self) {
        let now = self.route.get_untracked();
        let (_, page) = parts(&hash::current());
        let moved = page.lesson.is_some() && (page.lesson != now.page.lesson || page.step != now.page.step);
        let (view, page) = parts(&settled(self.settle, moved));
        if view != now.view || page.lesson != now.page.lesson || page.step != now.page.step {
            self.route.set(Route { view, page, mount: now.mount + 1 });
        } else if page != now.page {
            self.route.update(|r| r.page = page);
        }
    }

    /// Writes `page` and `view_hash` into the URL (no history entry) and mounts that view afresh.
    pub fn go(self, page: Page, view_hash: &str) {
        hash::write(&page, view_hash);
        let view = View::of(view_hash);
        self.route.update(|r| *r = Route { view, page, mount: r.mount + 1 });
    }

    /// Opens `view` at its defaults, keeping the page keys.
    pub fn switch(self, view: View) {
        let view_hash = if view == View::Train { "#view=train" } else { "#" };
        self.go(self.page_untracked(), view_hash);
    }

    /// Changes the page keys, keeping the mounted view and its state (no remount).
    pub fn set_page(self, page: Page) {
        hash::write(&page, &hash::view_hash());
        self.route.update(|r| r.page = page);
    }

    /// The page keys, tracked.
    pub fn page(self) -> Page {
        self.route.with(|r| r.page.clone())
    }

    /// The page keys, untracked.
    pub fn page_untracked(self) -> Page {
        self.route.with_untracked(|r| r.page.clone())
    }

    /// What decides a remount: the view and the mount counter.
    pub fn mounted(self) -> Memo<(View, u64)> {
        let route = self.route;
        Memo::new(move |_| route.with(|r| (r.view, r.mount)))
    }
}
