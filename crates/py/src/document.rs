//! Scenario documents across the Python boundary without Python's `tomllib` and `json`: a TOML
//! file read into Python objects, and a Python dict read into the JSON value the engine parses.
//!
//! Why: importing `tomllib` and `json` (and the `re`, `enum`, `typing` they pull in) cost about
//! 15 ms of every process, as much as a small simulation (docs/PERFORMANCE.md). Both paths are
//! exact or refuse: where they cannot give what `tomllib.loads` or `json.dumps` would (a TOML
//! date-time, an integer beyond i64, a string no UTF-8 can hold, a type JSON lacks), they
//! give nothing and the caller takes the Python module's path, so every result and every error
//! message stays the one the Python modules give.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// The key under which the `toml` crate hands a date-time to a deserializer (its
/// `toml_datetime` wire form): `tomllib` returns a `datetime`, which we leave to it.
const TOML_DATETIME: &str = "$__toml_private_datetime";

/// A TOML document as the dicts, lists, strings, integers, floats and booleans `tomllib.loads`
/// returns, keys in document order; `None` for what this reader leaves to `tomllib` (a syntax
/// error, so that the message is tomllib's; a date-time; an integer beyond i64; a byte-order mark).
pub fn toml_to_python(py: Python<'_>, text: &str) -> Option<PyObject> {
    // tomllib refuses a byte-order mark (the front end strips one before); the toml crate skips it.
    if text.starts_with('\u{feff}') {
        return None;
    }
    let de = toml::Deserializer::new(text);
    PyValue(py).deserialize(de).ok()
}

struct PyValue<'py>(Python<'py>);

impl<'de, 'py> DeserializeSeed<'de> for PyValue<'py> {
    type Value = PyObject;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<PyObject, D::Error> {
        d.deserialize_any(self)
    }
}

fn py_err<E: de::Error>(e: PyErr) -> E {
    E::custom(e)
}

impl<'de, 'py> Visitor<'de> for PyValue<'py> {
    type Value = PyObject;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a TOML value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<PyObject, E> {
        Ok(PyBool::new(self.0, v).to_owned().into_any().unbind())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<PyObject, E> {
        let Ok(o) = v.into_pyobject(self.0);
        Ok(o.into_any().unbind())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<PyObject, E> {
        let Ok(o) = v.into_pyobject(self.0);
        Ok(o.into_any().unbind())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<PyObject, E> {
        Ok(PyFloat::new(self.0, v).into_any().unbind())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<PyObject, E> {
        Ok(PyString::new(self.0, v).into_any().unbind())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PyObject, A::Error> {
        let list = PyList::empty(self.0);
        while let Some(v) = seq.next_element_seed(PyValue(self.0))? {
            list.append(v).map_err(py_err)?;
        }
        Ok(list.into_any().unbind())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PyObject, A::Error> {
        let dict = PyDict::new(self.0);
        while let Some(k) = map.next_key::<String>()? {
            if k == TOML_DATETIME {
                return Err(de::Error::custom("a date-time: left to tomllib"));
            }
            let v = map.next_value_seed(PyValue(self.0))?;
            dict.set_item(k, v).map_err(py_err)?;
        }
        Ok(dict.into_any().unbind())
    }
}

/// Nesting beyond this is left to `json.dumps` (the front end refuses documents nested deeper
/// than 32 levels before they come here).
const MAX_DEPTH: usize = 64;

/// A Python object as the JSON value `json.loads(json.dumps(obj))` would give the engine (dict,
/// list, tuple, str, int, float, bool, None), or `None` where only `json.dumps` can say what
/// happens (a key that is not a string, an integer beyond 64 bits, nan or infinity, a string with
/// a lone surrogate, a subclass of dict, list or tuple, any other type).
pub fn python_to_json(obj: &Bound<'_, PyAny>) -> Option<Value> {
    fn go(obj: &Bound<'_, PyAny>, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        if obj.is_none() {
            return Some(Value::Null);
        }
        // Before int: a bool is an int to Python.
        if let Ok(b) = obj.downcast::<PyBool>() {
            return Some(Value::Bool(b.is_true()));
        }
        if let Ok(s) = obj.downcast::<PyString>() {
            return s.to_cow().ok().map(|s| Value::String(s.into_owned()));
        }
        if obj.is_instance_of::<PyInt>() {
            // json.loads reads a non-negative integer as u64 and a negative one as i64.
            return match obj.extract::<i64>() {
                Ok(i) => Some(Value::from(i)),
                Err(_) => obj.extract::<u64>().ok().map(Value::from),
            };
        }
        if let Ok(f) = obj.downcast::<PyFloat>() {
            return Number::from_f64(f.value()).map(Value::Number);
        }
        // Exact dicts, lists and tuples only: json.dumps reads a subclass through its own
        // methods (an overridden `items`), which the C API here would bypass.
        if let Ok(d) = obj.downcast_exact::<PyDict>() {
            let mut m = Map::new();
            for (k, v) in d.iter() {
                let k = k.downcast::<PyString>().ok()?.to_cow().ok()?.into_owned();
                m.insert(k, go(&v, depth + 1)?);
            }
            return Some(Value::Object(m));
        }
        if let Ok(l) = obj.downcast_exact::<PyList>() {
            return l.iter().map(|v| go(&v, depth + 1)).collect::<Option<Vec<_>>>().map(Value::Array);
        }
        if let Ok(t) = obj.downcast_exact::<PyTuple>() {
            return t.iter().map(|v| go(&v, depth + 1)).collect::<Option<Vec<_>>>().map(Value::Array);
        }
        None
    }
    go(obj, 0)
}

/// The scenario document the Python front end passes: JSON text, or a dict read directly
/// (`python_to_json`), falling back to `json.dumps` where that gives nothing.
pub enum Document {
    Text(String),
    Value(Value),
}

impl Document {
    pub fn of(obj: &Bound<'_, PyAny>) -> PyResult<Document> {
        if let Ok(s) = obj.downcast::<PyString>() {
            return Ok(Document::Text(s.to_cow()?.into_owned()));
        }
        if let Some(v) = python_to_json(obj) {
            return Ok(Document::Value(v));
        }
        let text = obj.py().import("json")?.call_method1("dumps", (obj,))?;
        Ok(Document::Text(text.extract()?))
    }

    pub fn scenario(&self) -> Result<fabricsim_engine::Scenario, fabricsim_engine::Issues> {
        match self {
            Document::Text(t) => fabricsim_engine::Scenario::from_json(t),
            Document::Value(v) => fabricsim_engine::Scenario::from_value(v),
        }
    }
}
