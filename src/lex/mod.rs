//! Lexing helpers: where a source text's comments, strings and names are,
//! found by scanning its bytes, without parsing. Below everything that reads
//! syntax: the prefilter and the front ends both ask them.

pub mod rust;
pub mod sql;
