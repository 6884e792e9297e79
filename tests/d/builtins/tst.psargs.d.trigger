triggers/tr-calls 2 a '' b
