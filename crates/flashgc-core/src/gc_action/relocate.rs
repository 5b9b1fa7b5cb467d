//! `move`: the classic GC action, every valid page of a victim is relocated to the stream
//! the placement scheme chooses. The FTL runs it on its plain path (no content mode), so
//! this type only stands for the name in the registry.

use super::{ActionInit, GcAction, PageAction, Target};
use crate::content::{ContentNeeds, ContentView};
use crate::error::Result;
use crate::segment::SegmentView;
use crate::spec::Spec;
use crate::types::{Lpn, Ppn, SegmentId};

/// Relocate every valid page.
#[derive(Debug, Clone, Copy, Default)]
pub struct Relocate;

pub(super) fn build(_spec: &Spec, _init: ActionInit) -> Result<Box<dyn GcAction>> {
    Ok(Box::new(Relocate))
}

impl GcAction for Relocate {
    fn name(&self) -> &'static str {
        "move"
    }
    fn needs(&self) -> ContentNeeds {
        ContentNeeds::default()
    }
    fn on_victim_page(
        &mut self,
        _ppn: Ppn,
        _owner: Option<Lpn>,
        _victim: SegmentId,
        _segs: &SegmentView,
        _content: &ContentView,
    ) -> PageAction {
        PageAction::Move {
            to: Target::Placement,
            index: false,
        }
    }
}
