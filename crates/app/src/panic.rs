//! A panic must not leave a silently dead page: show it in a banner and log it.

use wasm_bindgen::JsCast;

/// Makes every panic log to `console.error` and show an error banner on top of the page.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("qscope panicked: {message}").into());
        show_banner(&message);
    }));
}

fn show_banner(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    let Ok(banner) = document.create_element("div") else {
        return;
    };
    let _ = banner.set_attribute("class", "crash");
    let _ = banner.set_attribute("role", "alert");
    let _ = banner.set_attribute("data-testid", "panic");
    banner
        .set_text_content(Some(&format!("qscope stopped with an internal error — please reload the page. {message}")));
    let body: &web_sys::Node = body.unchecked_ref();
    let _ = body.insert_before(&banner, body.first_child().as_ref());
}
