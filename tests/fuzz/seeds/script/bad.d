io:::start { speculate(1); @a = count(); }
