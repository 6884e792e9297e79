triggers/tr-cred
