triggers/tr-types-dwarf4 3
