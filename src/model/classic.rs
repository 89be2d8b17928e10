//! Classic vision/NLP/speech sizing (to be written).
