triggers/tr-threads 2 3
