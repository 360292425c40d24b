//! The entry point: chooses the dispatcher of the requested PMU and runs it.

use crate::error::{DispatchError, DispatchErrorKind};
use crate::request::Request;
use crate::response::Dispatch;
use crate::{ia64_dispatch, nhm};
use pfmlib::model_specific::{dispatcher, Dispatcher};
use pfmlib::Library;

/// Dispatches a request: assigns counters and computes the registers.
pub fn dispatch(lib: &Library, req: &Request) -> Result<Dispatch, DispatchError> {
    if req.events.is_empty() {
        return Err(DispatchError::new(
            DispatchErrorKind::Invalid,
            "the request has no events: give at least one",
        ));
    }
    let pmu = lib.pmu(&req.pmu).ok_or_else(|| {
        DispatchError::new(
            DispatchErrorKind::NotFound,
            format!("unknown PMU {:?}", req.pmu),
        )
    })?;
    match dispatcher(pmu) {
        Some(Dispatcher::Nehalem) => nhm::dispatch(lib, pmu, req),
        Some(Dispatcher::Ia64(model)) => ia64_dispatch::dispatch(lib, pmu, model, req),
        _ => Err(DispatchError::new(
            DispatchErrorKind::NotSupported,
            format!("dispatch is not implemented for PMU {}", pmu.name()),
        )),
    }
}
