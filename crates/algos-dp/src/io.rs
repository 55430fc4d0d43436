//! Reading cutting instances: the OR-Library `gcut` format ([`read_gcut`]) and the JSON files of the
//! OR-Datasets collection ([`read_or_datasets_json`]; GCUT, CMWX = gcut14–17, HERZ, HIFI …).
//!
//! ```text
//! m                      number of piece types
//! L W                    stock length (along the width) and width (along the height)
//! l w v                  m lines: piece length, width, value
//! ```
//! Numbers may be spread over lines in any way (OR-Library files wrap them); every error names the
//! file and the line. Pieces larger than the stock are kept (they never fit) and counted in
//! [`GcutFile::too_large`].

use crate::DpError;
use std::path::Path;

use crate::guillotine::{Instance, Piece};

/// An instance read from a file, with what the reader noticed.
#[derive(Debug, Clone)]
pub struct GcutFile {
    /// The instance (fixed orientation; use [`Instance::with_rotation`] for the rotated variant).
    pub instance: Instance,
    /// Pieces larger than the stock in either direction (kept; they never fit).
    pub too_large: usize,
    /// The instance's name, where the format has one.
    pub name: Option<String>,
    /// Pieces whose demand the file bounds (a `Demand` above 1 or a `DemandMax`): the solver here is
    /// unconstrained (any number of copies), so these bounds are not applied — callers should say so.
    pub bounded_demands: usize,
}

/// Reads an OR-Library gcut file.
pub fn read_gcut(path: impl AsRef<Path>) -> Result<GcutFile, DpError> {
    let path = path.as_ref();
    let text =
        std::fs::read_to_string(path).map_err(|source| DpError::Open { path: path.to_path_buf(), source })?;
    parse_gcut(&text, path)
}

/// Parses gcut text; `name` is used in errors.
///
/// ```
/// let f = urbanflow::dp::io::parse_gcut("2\n10 6\n4 3 12\n6 6 40\n", "tiny.txt").unwrap();
/// assert_eq!((f.instance.width, f.instance.pieces.len()), (10, 2));
/// let err = urbanflow::dp::io::parse_gcut("2\n10 6\n4 3 12\n6 x 40\n", "bad.txt").unwrap_err();
/// assert_eq!(err.to_string(), "bad.txt:4: piece 2 width: expected a whole number, found `x`");
/// ```
pub fn parse_gcut(text: &str, name: impl AsRef<Path>) -> Result<GcutFile, DpError> {
    let path = name.as_ref().to_path_buf();
    let mut tokens =
        text.lines().enumerate().flat_map(|(l, line)| line.split_whitespace().map(move |t| (l + 1, t)));
    let last_line = text.lines().count().max(1);
    let mut next = |what: String| -> Result<(usize, u64), DpError> {
        match tokens.next() {
            Some((line, tok)) => tok.parse::<u64>().map(|v| (line, v)).map_err(|_| DpError::Parse {
                path: path.clone(),
                line,
                what: format!("{what}: expected a whole number, found `{tok}`"),
            }),
            None => Err(DpError::Parse {
                path: path.clone(),
                line: last_line,
                what: format!("{what}: expected a whole number, found the end of the file"),
            }),
        }
    };
    let side = |(line, v): (usize, u64), what: &str| -> Result<u32, DpError> {
        u32::try_from(v).ok().filter(|&v| v > 0).ok_or_else(|| DpError::Parse {
            path: path.clone(),
            line,
            what: format!("{what} {v}: expected a side from 1 to {}", u32::MAX),
        })
    };
    let (_, m) = next("number of piece types".into())?;
    let width = side(next("stock length".into())?, "stock length")?;
    let height = side(next("stock width".into())?, "stock width")?;
    let mut pieces = Vec::new();
    let mut too_large = 0;
    for k in 1..=m {
        let w = side(next(format!("piece {k} length"))?, &format!("piece {k} length"))?;
        let h = side(next(format!("piece {k} width"))?, &format!("piece {k} width"))?;
        let (_, value) = next(format!("piece {k} value"))?;
        too_large += usize::from(w > width || h > height);
        pieces.push(Piece::new(w, h, value));
    }
    if let Some((line, tok)) = tokens.next() {
        return Err(DpError::Parse {
            path,
            line,
            what: format!("unexpected `{tok}` after the {m} pieces the file announces"),
        });
    }
    Ok(GcutFile { instance: Instance::new(width, height, pieces), too_large, name: None, bounded_demands: 0 })
}

/// A side in a JSON file: a whole number from 1 to `u32::MAX`, checked while parsing so the error
/// carries the line and column.
struct Side(u32);

impl<'de> serde::Deserialize<'de> for Side {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = u64::deserialize(d)?;
        u32::try_from(v)
            .ok()
            .filter(|&v| v > 0)
            .map(Side)
            .ok_or_else(|| serde::de::Error::custom(format!("a side of {v}: expected 1 to {}", u32::MAX)))
    }
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct JsonInstance {
    name: Option<String>,
    objects: Vec<JsonObject>,
    items: Vec<JsonItem>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct JsonObject {
    length: Side,
    height: Side,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct JsonItem {
    length: Side,
    height: Side,
    value: u64,
    #[serde(default)]
    demand: Option<u64>,
    #[serde(default)]
    demand_max: Option<u64>,
}

/// Reads a cutting instance in the JSON format of the OR-Datasets collection (Oliveira,
/// `Cutting-and-Packing/2D/Datasets/*/json/`): one stock in `Objects` (`Length` along the width,
/// `Height`), pieces in `Items` (`Length`, `Height`, `Value`; `Demand`/`DemandMax` are counted in
/// [`GcutFile::bounded_demands`] but not applied). Errors name the file, line and column.
pub fn read_or_datasets_json(path: impl AsRef<Path>) -> Result<GcutFile, DpError> {
    let path = path.as_ref();
    let text =
        std::fs::read_to_string(path).map_err(|source| DpError::Open { path: path.to_path_buf(), source })?;
    parse_or_datasets_json(&text, path)
}

/// Parses OR-Datasets JSON text; `name` is used in errors.
///
/// ```
/// let text = r#"{"Name":"tiny","Objects":[{"Length":10,"Height":6}],
///   "Items":[{"Length":4,"Height":3,"Demand":1,"DemandMax":null,"Value":12},
///            {"Length":6,"Height":6,"Demand":1,"DemandMax":null,"Value":40}]}"#;
/// let f = urbanflow::dp::io::parse_or_datasets_json(text, "tiny.json").unwrap();
/// assert_eq!((f.instance.width, f.instance.height, f.instance.pieces.len()), (10, 6, 2));
/// assert_eq!(f.name.as_deref(), Some("tiny"));
/// let bad = r#"{"Name":"bad","Objects":[{"Length":10,"Height":6}],
///   "Items":[{"Length":0,"Height":3,"Value":12}]}"#;
/// let err = urbanflow::dp::io::parse_or_datasets_json(bad, "bad.json").unwrap_err();
/// assert!(err.to_string().starts_with("bad.json:2: column 22: a side of 0"), "{err}");
/// ```
pub fn parse_or_datasets_json(text: &str, name: impl AsRef<Path>) -> Result<GcutFile, DpError> {
    let path = name.as_ref().to_path_buf();
    let parsed: JsonInstance = serde_json::from_str(text).map_err(|e| {
        let what = e.to_string();
        // serde_json appends " at line L column C"; the line goes into the error's own field.
        let what = what.split(" at line ").next().unwrap_or(&what).to_string();
        DpError::Parse {
            path: path.clone(),
            line: e.line().max(1),
            what: format!("column {}: {what}", e.column()),
        }
    })?;
    let [stock] = parsed.objects.as_slice() else {
        return Err(DpError::Parse {
            path,
            line: 1,
            what: format!("expected exactly one stock in `Objects`, found {}", parsed.objects.len()),
        });
    };
    let (width, height) = (stock.length.0, stock.height.0);
    let mut too_large = 0;
    let mut bounded_demands = 0;
    let pieces = parsed
        .items
        .iter()
        .map(|it| {
            too_large += usize::from(it.length.0 > width || it.height.0 > height);
            bounded_demands += usize::from(it.demand.is_some_and(|d| d > 1) || it.demand_max.is_some());
            Piece::new(it.length.0, it.height.0, it.value)
        })
        .collect();
    Ok(GcutFile {
        instance: Instance::new(width, height, pieces),
        too_large,
        name: parsed.name,
        bounded_demands,
    })
}
