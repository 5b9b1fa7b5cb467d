//! A policy's state streamed into and out of its checkpoint section.
//!
//! Placements, victim policies and GC actions hold the largest tables after the FTL's
//! (SepBIT's 8 B per logical page, MiDAS's timestamps). Encoded into a buffer first, a
//! table was held twice while a checkpoint was written (the raw bytes and the buffer) and
//! once more while it was read (the section's bytes beside the decoded table): a run
//! interrupted or checkpointed peaked up to twice the policy's memory above its estimate.
//! Streamed through [`StateOut`] and [`StateIn`], with raw tables in bounded chunks
//! (`serde_with::raw`), a checkpoint costs a few MiB of scratch whatever the table.

use super::{opts, CheckpointReader, CheckpointWriter};
use crate::error::{Error, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// Where a policy writes its state: a checkpoint section, or a buffer (tests). Written once,
/// with [`StateOut::put`].
pub struct StateOut<'a> {
    to: To<'a>,
    written: bool,
}

enum To<'a> {
    Section(&'a mut CheckpointWriter, &'static [u8; 4]),
    Buffer(&'a mut Vec<u8>),
}

impl<'a> StateOut<'a> {
    /// The section `tag` of the checkpoint `w`.
    pub(crate) fn section(w: &'a mut CheckpointWriter, tag: &'static [u8; 4]) -> StateOut<'a> {
        StateOut {
            to: To::Section(w, tag),
            written: false,
        }
    }

    /// A buffer (what a section would hold, for tests and tools).
    pub fn buffer(b: &'a mut Vec<u8>) -> StateOut<'a> {
        StateOut {
            to: To::Buffer(b),
            written: false,
        }
    }

    /// Writes the policy's whole state; a second call is an error (a section holds one
    /// value).
    pub fn put<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        if self.written {
            return Err(Error::Input(
                "internal: a policy wrote its checkpoint state twice".into(),
            ));
        }
        match &mut self.to {
            To::Section(w, tag) => w.value(tag, v)?,
            To::Buffer(b) => {
                use bincode::Options;
                opts()
                    .serialize_into(&mut **b, v)
                    .map_err(|e| Error::Input(format!("cannot encode checkpoint state: {e}")))?
            }
        }
        self.written = true;
        Ok(())
    }

    /// Checks that the state was written (a section without it would leave the file
    /// unreadable).
    pub(crate) fn finish(self, what: &str) -> Result<()> {
        if self.written {
            Ok(())
        } else {
            Err(Error::Input(format!(
                "internal: {what} wrote no checkpoint state"
            )))
        }
    }
}

/// Where a policy reads its state from: a checkpoint section (streamed), or bytes that
/// [`StateOut::buffer`] wrote.
pub struct StateIn<'a> {
    from: From<'a>,
}

enum From<'a> {
    Section(&'a mut CheckpointReader, u64),
    Bytes(&'a [u8]),
}

impl<'a> StateIn<'a> {
    /// The next section of `r`, which must carry `tag`.
    pub(crate) fn section(r: &'a mut CheckpointReader, tag: &[u8; 4]) -> Result<StateIn<'a>> {
        let len = r.header(tag)?;
        Ok(StateIn {
            from: From::Section(r, len),
        })
    }

    /// Bytes that [`StateOut::buffer`] wrote.
    pub fn bytes(b: &'a [u8]) -> StateIn<'a> {
        StateIn {
            from: From::Bytes(b),
        }
    }

    /// Decodes the policy's state; damaged bytes give an error, never a panic.
    pub fn get<T: DeserializeOwned>(&mut self) -> Result<T> {
        match &mut self.from {
            From::Section(r, left) => r.decode_body(left),
            From::Bytes(b) => super::decode(b),
        }
    }

    /// Checks that the whole section was read (a policy that read less did not restore
    /// what was saved).
    pub(crate) fn finish(self) -> Result<()> {
        match self.from {
            From::Section(_, left) if left > 0 => Err(Error::Input(format!(
                "{left} bytes of the section were not read"
            ))),
            _ => Ok(()),
        }
    }
}
