triggers/tr-calls 4
