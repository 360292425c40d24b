pub mod arm;
pub mod head;
pub mod power;
pub mod sweep;
pub mod torrent;
pub mod validate;
pub mod words;
