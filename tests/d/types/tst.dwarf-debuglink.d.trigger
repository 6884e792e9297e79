triggers/tr-debuglink 2
