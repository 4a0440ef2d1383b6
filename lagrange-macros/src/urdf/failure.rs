//! Why a file cannot be spliced: an error in the file, or names of the file that the
//! model's own declarations take. `splice` turns each into errors at the path.

/// An error about the file: the line it concerns, if any, and what is wrong.
pub type FileError = (Option<u32>, String);

/// Why the statements of a parsed file cannot be written: an error in the file (at a line
/// of it, when there is one), or file's names taken by the model's own declarations, each
/// with the index of the declaration (reported at both, all of them).
pub enum Failure {
    File(Option<u32>, String),
    Declared(Vec<(usize, Option<u32>, String)>),
}

impl From<FileError> for Failure {
    fn from((line, message): FileError) -> Self {
        Failure::File(line, message)
    }
}
