//! The model-specific facts of one event (libpfm-3's per-event queries),
//! ready for text and JSON, whatever the model: what `pfm info` and
//! `pfm list --json` print beside the event's generic information.

use crate::ia64::{Ia64Event, Ia64Queries};
use pfmlib::Event;
use serde::Serialize;

/// The model-specific facts of an event: today the IA-64 per-event queries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFacts {
    lines: Vec<(&'static str, String)>,
    fields: Ia64Queries,
}

impl ModelFacts {
    /// For people: `(label, value)` lines, in order.
    pub fn lines(&self) -> &[(&'static str, String)] {
        &self.lines
    }

    /// For JSON: every query result under libpfm-3's names (a serde struct
    /// whose members extend the event's object).
    pub fn fields(&self) -> &impl Serialize {
        &self.fields
    }
}

/// The model-specific facts of an event; `None` when its model has none.
pub fn model_facts(event: Event<'_>) -> Option<ModelFacts> {
    let q = Ia64Event::new(event)?;
    Some(ModelFacts {
        lines: q.lines(),
        fields: q.queries(),
    })
}
