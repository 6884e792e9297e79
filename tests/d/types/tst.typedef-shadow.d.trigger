triggers/tr-types 1
