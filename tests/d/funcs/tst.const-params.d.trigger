triggers/tr-calls 3
