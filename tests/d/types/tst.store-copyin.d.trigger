triggers/tr-types 3
