pub mod arm;
pub mod head;
pub mod mips;
pub mod sweep;
pub mod validate;
pub mod words;
