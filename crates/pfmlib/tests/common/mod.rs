pub mod arm;
pub mod head;
pub mod power;
pub mod sweep;
pub mod validate;
pub mod words;
