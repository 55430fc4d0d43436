//! DIMACS coordinate files (`.co`).

use std::io::BufRead;
use std::path::Path;

use super::lines::{Lines, excerpt, no_more, parse_vertex};
use super::{GraphError, ParseIssue, open_text};

const CO_HEADER: &str = "p aux sp co <n>";

/// Reads a DIMACS `.co` file: `p aux sp co n`, then `v id x y` for every vertex (1-based ids, integer
/// coordinates, typically longitude and latitude times 10^6). Returns `[x, y]` indexed by 0-based id.
pub fn read_dimacs_coordinates(path: impl AsRef<Path>) -> Result<Vec<[i32; 2]>, GraphError> {
    let path = path.as_ref();
    parse_dimacs_coordinates(open_text(path)?, path)
}

/// Parses a DIMACS `.co` file from any reader.
pub fn parse_dimacs_coordinates(
    reader: impl BufRead,
    name: impl AsRef<Path>,
) -> Result<Vec<[i32; 2]>, GraphError> {
    let mut lines = Lines::new(reader, name);
    let mut coords: Option<Vec<Option<[i32; 2]>>> = None;
    let mut seen = 0u64;
    while let Some(line) = lines.next_line()? {
        let mut f = line.split_ascii_whitespace();
        let result = match f.next() {
            None | Some("c") => continue,
            Some("p") if coords.is_some() => Err(ParseIssue::DuplicateProblemLine),
            Some("p") => {
                let ok = f.next() == Some("aux") && f.next() == Some("sp") && f.next() == Some("co");
                match (ok, f.next().and_then(|s| s.parse::<u32>().ok()), f.next()) {
                    (true, Some(n), None) => {
                        coords = Some(vec![None; n as usize]);
                        Ok(())
                    }
                    _ => Err(ParseIssue::BadProblemLine { found: excerpt(line), expected: CO_HEADER }),
                }
            }
            Some("v") => match coords.as_mut() {
                None => Err(ParseIssue::MissingProblemLine { expected: CO_HEADER }),
                Some(c) => (|| {
                    let id = parse_vertex(f.next(), "id", 1, c.len() as u64)?;
                    let x = parse_coordinate(f.next(), "x")?;
                    let y = parse_coordinate(f.next(), "y")?;
                    no_more(f, line)?;
                    if c[id as usize].replace([x, y]).is_some() {
                        return Err(ParseIssue::DuplicateVertex { id: id as u64 + 1 });
                    }
                    seen += 1;
                    Ok(())
                })(),
            },
            Some(_) => Err(ParseIssue::UnexpectedLine {
                found: excerpt(line),
                expected: "`c` comment, `p aux sp co n` or `v id x y`",
            }),
        };
        result.map_err(|kind| lines.error(kind))?;
    }
    let Some(coords) = coords else {
        return Err(lines.error(ParseIssue::Empty { expected: CO_HEADER }));
    };
    if seen != coords.len() as u64 {
        let header = coords.len() as u64;
        return Err(lines.error(ParseIssue::CountMismatch { what: "vertices", header, found: seen }));
    }
    Ok(coords.into_iter().map(|c| c.expect("every vertex seen")).collect())
}

fn parse_coordinate(field: Option<&str>, name: &'static str) -> Result<i32, ParseIssue> {
    let found = field.unwrap_or("");
    found.parse::<i32>().map_err(|_| ParseIssue::BadField {
        field: name,
        found: found.to_string(),
        expected: "an integer coordinate",
    })
}
