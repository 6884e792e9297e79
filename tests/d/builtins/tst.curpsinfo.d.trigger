triggers/tr-calls 2
