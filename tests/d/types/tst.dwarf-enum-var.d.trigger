triggers/tr-types 4
