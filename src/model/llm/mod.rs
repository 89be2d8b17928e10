//! Transformer LLM sizing (to be written).
