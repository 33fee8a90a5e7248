pub mod markdown;
pub mod theme;
