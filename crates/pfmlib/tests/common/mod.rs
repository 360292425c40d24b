pub mod arm;
pub mod sweep;
pub mod words;
