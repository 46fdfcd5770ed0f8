//! The web app: both files in a form built from the core's JSON Schemas (one
//! source of truth for labels, descriptions, defaults and choices), linted by
//! the core on every change, with the GPU memory picture, the rendered
//! `vllm serve` launch, the simulator's what-if curve, and, when served by
//! `cfg-bench serve`, live load tests.

pub mod fmt;
pub mod model;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
mod charts;
#[cfg(target_arch = "wasm32")]
mod form;
#[cfg(target_arch = "wasm32")]
mod net;
#[cfg(target_arch = "wasm32")]
mod run;
#[cfg(target_arch = "wasm32")]
mod side;
#[cfg(target_arch = "wasm32")]
mod start;
#[cfg(target_arch = "wasm32")]
mod state;

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    yew::Renderer::<app::App>::new().render();
}
