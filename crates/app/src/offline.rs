//! The site offline: registers the service worker (`sw.js`, written beside the page by
//! scripts/offline.mjs from assets/sw.js), which keeps the app, its lessons, the book and the
//! reference for the next visit without a network, and installs the next build when the site
//! has one. Where a browser has no service workers (a page over plain HTTP from another computer,
//! a test that blocks them) the page works as before, online.

use wasm_bindgen::{JsCast, JsValue};

use super::dom::settle;

/// Registers `sw.js` (scope: the page's folder). Failing is not an error the user can act on:
/// the page keeps working online, and says why in the console.
pub fn register() {
    let navigator: JsValue = leptos::prelude::window().navigator().into();
    let Ok(container) = js_sys::Reflect::get(&navigator, &JsValue::from_str("serviceWorker")) else { return };
    if container.is_undefined() || container.is_null() {
        return;
    }
    let register = js_sys::Reflect::get(&container, &JsValue::from_str("register"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let Some(register) = register else { return };
    let Ok(promise) = register.call1(&container, &JsValue::from_str("sw.js")) else { return };
    let Ok(promise) = promise.dyn_into::<js_sys::Promise>() else { return };
    settle(
        &promise,
        |_| {},
        |why| {
            let why =
                why.as_string().or_else(|| js_sys::Reflect::get(&why, &JsValue::from_str("message")).ok()?.as_string());
            web_sys::console::info_1(&JsValue::from_str(&format!(
                "qscope works online only here: its service worker did not register ({})",
                why.unwrap_or_else(|| "no reason given".into())
            )));
        },
    );
}
