//! `ResultsDocument`: a finished run's results kept in the core, serialized as the results
//! document (JSON) only when asked for, as text or straight into a file.
//!
//! A run with many flows has a document of about 10 kB per flow (pretty-printed, each
//! flow's delay at every hundredth included): written to its file from here, it never
//! becomes a Python string, and Python reads the run's tables as columns instead of parsing
//! it.

use pyo3::prelude::*;
use qoslab_core::Results;
use std::fs::File;

/// The results of a finished run, held until their document is asked for.
#[pyclass(module = "qoslab._core", frozen)]
pub struct ResultsDocument {
    results: Results,
}

impl ResultsDocument {
    pub fn new(results: Results) -> Self {
        ResultsDocument { results }
    }
}

#[pymethods]
impl ResultsDocument {
    /// The results document as JSON text, byte for byte what `Simulation.finish` returns.
    fn text(&self, py: Python<'_>) -> String {
        py.detach(|| self.results.to_json())
    }

    /// Writes the document to a new file at `path` (which must not exist: an existing file
    /// or link there is an error, never written through).
    fn write(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        py.detach(|| self.results.write_json(File::create_new(&path)?))?;
        Ok(())
    }
}
