triggers/tr-types 2
