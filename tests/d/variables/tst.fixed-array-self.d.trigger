triggers/tr-calls 6
