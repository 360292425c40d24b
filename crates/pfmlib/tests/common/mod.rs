pub mod sweep;
