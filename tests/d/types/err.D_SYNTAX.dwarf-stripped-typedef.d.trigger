triggers/tr-nodebug 1
